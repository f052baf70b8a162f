import FlowWire
import Foundation
import Synchronization

/// Something an inspector saw on flowd's events socket.
public enum Inspected: Sendable, Hashable {
    /// An inspection event (`stepFate`, `didNavigate`, `visibilityReported`...), with the header of the message
    /// that carried it, `sentAt` being when flowd produced the event. A batch of navigation commands for a
    /// presenter is an event of kind `commands` whose fields are the COMMANDS body, as the presenter receives it
    /// (`CommandsMessage(wire: .object(event.fields), at: "")` reads it).
    case event(InspectionEvent, Header)
    /// The events connection dropped; what flowd publishes until it is back is lost.
    case connectionLost
    /// The events connection is back, and flowd confirmed the subscriptions again.
    case connectionRestored
    /// The reader fell behind: this many items were left out because the stream already held
    /// ``InspectionStream/bufferLimit`` bursts not read (a slow terminal), so that it never grows without bound.
    case skipped(Int)
}

/// The inspection stream: what flowd publishes for inspectors (and, optionally, the command batches it sends
/// presenters), as an `AsyncStream`. It only listens — it does not register, and watching costs flowd one
/// published message per session every few milliseconds (EVENTS), however many events they had; events arrive
/// at most 5 ms after they happened, each with its own time. A watcher that falls behind loses messages (flowd
/// never waits for it), and a reader that does not keep up with the stream is told what it skipped.
///
/// ```swift
/// let stream = try await InspectionStream.open(session: "kiosk-7")
/// for await item in stream.items {
///     if case .event(let event, _) = item, event.kind == "stepFate" { print(event.fields) }
/// }
/// ```
public final class InspectionStream: Sendable {
    /// Everything seen, in the bursts it arrived in (all that was waiting on the socket at once), in order; it
    /// ends when the stream is closed. A busy watcher reads these: one hand-over per burst instead of per item.
    /// Read either ``batches`` or ``items``, from one task.
    public let batches: AsyncStream<[Inspected]>
    /// The topics subscribed: `inb/` (or `inb/<session>/`), where flowd publishes the events batched (EVENTS),
    /// command batches included.
    public let topics: [String]

    private let stop: StopFlag

    /// How many bursts (each at most 256 items) the stream holds for a reader that does not keep up; beyond, new
    /// ones are left out and counted (``Inspected/skipped(_:)``).
    public static let bufferLimit = 64

    private init(batches: AsyncStream<[Inspected]>, topics: [String], stop: StopFlag) {
        self.batches = batches
        self.topics = topics
        self.stop = stop
    }

    /// Everything seen, one item at a time, in order; it ends when the stream is closed.
    public var items: InspectedItems {
        InspectedItems(batches: batches)
    }

    /// Subscribes to flowd's inspection stream and returns once flowd confirmed every subscription: nothing
    /// published after that is missed (short of the connection dropping, which ``Inspected/connectionLost``
    /// tells).
    /// - Parameters:
    ///   - session: only this session's events; `nil` for every session and flowd's own (registrations...).
    ///   - commands: also the command batches flowd publishes for presenters (events of kind `commands`).
    ///   - options: where flowd is, its CURVE key and the connect timeout (the rest is for registered clients).
    /// - Throws: ``FlowBusError`` `unreachable` when flowd does not confirm within the connect timeout,
    ///   `invalidOptions` when the endpoint or keys are unusable.
    public static func open(
        session: String? = nil,
        commands: Bool = false,
        options: ClientOptions = ClientOptions()
    ) async throws(FlowBusError) -> InspectionStream {
        if let session, session.isEmpty {
            throw FlowBusError(.invalidOptions, "the session must not be empty")
        }
        if let problem = options.environmentProblem {
            throw FlowBusError(.invalidOptions, problem)
        }
        let scope = session.map { "\($0)/" } ?? ""
        let topics = ["inb/\(scope)"]
        let (batches, continuation) = AsyncStream<[Inspected]>.makeStream(
            bufferingPolicy: .bufferingOldest(bufferLimit)
        )
        let stop = StopFlag()
        // Listening stops when the stream is closed, or when nobody can read it any more.
        continuation.onTermination = { _ in stop.raise() }
        let stream = InspectionStream(batches: batches, topics: topics, stop: stop)
        let confirmed = PendingReply<Void>()
        try await confirmed.wait {
            let thread = Thread {
                InspectionLoop(
                    topics: topics,
                    session: session,
                    commands: commands,
                    options: options,
                    continuation: continuation,
                    confirmed: confirmed
                )?.run { stop.isRaised }
            }
            thread.name = "flowbus inspection"
            thread.start()
        }
        return stream
    }

    /// Stops listening; ``items`` and ``batches`` end, after what had already arrived.
    public func close() {
        stop.raise()
    }
}

/// A flag one thread raises and another reads.
final class StopFlag: Sendable {
    private let raised = Atomic(false)

    func raise() {
        raised.store(true, ordering: .relaxed)
    }

    var isRaised: Bool {
        raised.load(ordering: .relaxed)
    }
}
