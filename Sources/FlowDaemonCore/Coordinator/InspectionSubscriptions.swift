import FlowCore
import FlowWire

/// Who listens to the inspection stream, in each of its two forms, as the events socket's subscriptions say:
/// one EVENT per event (topics `ins/<session>/<kind>`) or EVENTS, many at once (`inb/<session>/`).
/// flowd builds neither form while nobody subscribes to it.
///
/// Counted by topic, so that a peer cannot make flowd stop building what others watch: an unsubscription is
/// taken only for a topic that has a subscription. With CURVE, libzmq keeps the subscriptions flowd refused as
/// well, and says they end when their connection does (with no key to tell whose): such an ending is taken from
/// the refused ones first.
struct InspectionSubscriptions: Sendable {
    /// Subscriptions that match some `ins/...` topic.
    private(set) var perEvent = 0
    /// Subscriptions that match some `inb/...` topic.
    private(set) var batched = 0
    /// Applied subscriptions to topics of either form, by topic.
    private var applied: [[UInt8]: Int] = [:]
    /// Refused subscriptions to topics of either form, by topic, until their connection ends.
    private var refused: [[UInt8]: Int] = [:]

    static let perEventPrefix = Array("ins/".utf8)
    static let batchedPrefix = Array("inb/".utf8)

    /// Whether anyone listens, in either form.
    var isWatched: Bool { perEvent > 0 || batched > 0 }

    /// A subscription, applied or refused. A topic counts for a form when it matches some topic of that form:
    /// `ins/kiosk/` and `in` both match `ins/kiosk/stepFate`; the empty topic matches everything.
    mutating func subscribed(_ topic: [UInt8], applied isApplied: Bool) {
        guard Self.forms(of: topic) != (false, false) else { return }
        if isApplied {
            applied[topic, default: 0] += 1
            change(topic, by: 1)
        } else {
            refused[topic, default: 0] += 1
        }
    }

    /// An unsubscription. `attributed`: it names the key that made it (an explicit one, by a key granted the
    /// topic), as opposed to the end of a connection, which may be that of a refused subscription.
    mutating func unsubscribed(_ topic: [UInt8], attributed: Bool) {
        if !attributed, let count = refused[topic] {
            refused[topic] = count > 1 ? count - 1 : nil
            return
        }
        guard let count = applied[topic] else { return }
        applied[topic] = count > 1 ? count - 1 : nil
        change(topic, by: -1)
    }

    private mutating func change(_ topic: [UInt8], by change: Int) {
        let (perEventForm, batchedForm) = Self.forms(of: topic)
        if perEventForm {
            perEvent = max(0, perEvent + change)
        }
        if batchedForm {
            batched = max(0, batched + change)
        }
    }

    private static func forms(of topic: [UInt8]) -> (perEvent: Bool, batched: Bool) {
        (matches(topic, perEventPrefix), matches(topic, batchedPrefix))
    }

    private static func matches(_ topic: [UInt8], _ prefix: [UInt8]) -> Bool {
        topic.starts(with: prefix) || prefix.starts(with: topic)
    }
}
