import FlowCore
import FlowWire

/// Who listens to the inspection stream, in each of its two forms, as the events socket's subscriptions say:
/// one EVENT per event (topics `ins/<session>/<kind>`) or EVENTS, many at once (`inb/<session>/`).
/// flowd builds neither form while nobody subscribes to it.
struct InspectionSubscriptions: Sendable {
    /// Subscriptions that match some `ins/...` topic.
    private(set) var perEvent = 0
    /// Subscriptions that match some `inb/...` topic.
    private(set) var batched = 0

    static let perEventPrefix = Array("ins/".utf8)
    static let batchedPrefix = Array("inb/".utf8)

    /// Whether anyone listens, in either form.
    var isWatched: Bool { perEvent > 0 || batched > 0 }

    /// Counts a subscription (or its end). A topic counts for a form when it matches some topic of that form:
    /// `ins/kiosk/` and `in` both match `ins/kiosk/stepFate`; the empty topic matches everything.
    mutating func count(_ topic: [UInt8], subscribed: Bool) {
        let change = subscribed ? 1 : -1
        if Self.matches(topic, Self.perEventPrefix) {
            perEvent = max(0, perEvent + change)
        }
        if Self.matches(topic, Self.batchedPrefix) {
            batched = max(0, batched + change)
        }
    }

    private static func matches(_ topic: [UInt8], _ prefix: [UInt8]) -> Bool {
        topic.starts(with: prefix) || prefix.starts(with: topic)
    }
}
