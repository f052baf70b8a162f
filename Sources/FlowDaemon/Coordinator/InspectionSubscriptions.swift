import FlowCore
import FlowWire

/// Who listens to the inspection stream, in each of its two forms, as the events socket's subscriptions say:
/// one EVENT per event (topics `ins/<session>/<kind>`) or one EVENTS per session and turn (`inb/<session>/`).
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

/// Batched inspection events (EVENTS) waiting to be published at the end of the loop's turn, per session, in
/// the order the sessions first had one.
struct PendingInspectionBatches: Sendable {
    /// The most events in one EVENTS message: a longer turn publishes more than one.
    static let limit = 256

    private var batches: [InspectionBatch] = []
    private var indices: [String: Int] = [:]

    var isEmpty: Bool { batches.isEmpty }

    /// Adds an event; returns a batch that is full, to publish now.
    mutating func add(_ entry: InspectionBatch.Entry, session: SessionID?) -> InspectionBatch? {
        let key = session?.rawValue ?? ""
        guard let index = indices[key] else {
            indices[key] = batches.count
            batches.append(InspectionBatch(session: session?.rawValue, events: [entry]))
            return nil
        }
        batches[index].events.append(entry)
        guard batches[index].events.count >= Self.limit else { return nil }
        let full = batches[index]
        batches[index].events.removeAll(keepingCapacity: true)
        return full
    }

    /// Everything waiting, in order; nothing waits afterwards.
    mutating func take() -> [InspectionBatch] {
        defer {
            batches.removeAll()
            indices.removeAll()
        }
        return batches.filter { !$0.events.isEmpty }
    }
}
