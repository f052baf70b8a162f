import FlowStore
import ZeroMQ

/// Holds each turn's messages until what the turn changed is written, and lets them go in the order of the turns.
///
/// A turn that changed nothing still waits for the turns before it: its answers (a query's reply, a fate already
/// known) must not describe a state that a crash could still take back.
///
/// With an ahead log, a group copied into it is written (to the operating system) as it is submitted: its turn's
/// messages leave at once, unless a turn before them still waits. A group the log had no room for waits for its
/// transaction, and so does every turn after it.
struct OrderedDelivery {
    private let writer: JournalWriter?
    private let waitsForWrites: Bool
    /// Each held turn's messages, and the ticket the writer's progress must reach before they leave.
    private var held: [(needs: UInt64, messages: [Outgoing], at: ContinuousClock.Instant)] = []
    private var lastTicket: UInt64 = 0
    /// The last group that is not in the ahead log (all of them without one): a turn may leave once it is written.
    private var lastUnlogged: UInt64 = 0

    /// `writer`: `nil` for an ephemeral flowd (messages leave at once). `waitsForWrites`: `false` with the
    /// durability `off` (messages leave at once, writes follow).
    init(writer: JournalWriter?, waitsForWrites: Bool) {
        self.writer = writer
        self.waitsForWrites = waitsForWrites
    }

    /// Whether messages wait for the writer.
    var isHolding: Bool { !held.isEmpty }
    /// How many turns' answers wait for their writes.
    var heldTurns: Int { held.count }

    /// Whether answers have waited for their writes longer than `duration` (the store is slow or down, not merely
    /// busy with the last group).
    func holds(longerThan duration: Duration) -> Bool {
        held.first.map { ContinuousClock.now - $0.at > duration } ?? false
    }

    /// Takes a turn's effects: hands the writes to the writer, and returns the messages that may leave now (those
    /// that describe no state always do).
    mutating func take(_ effects: TurnEffects) -> [Outgoing] {
        guard let writer else { return effects.immediate + effects.messages }
        if !effects.persist.isEmpty {
            let submission = writer.submitLoggingAhead(effects.persist)
            lastTicket = submission.ticket
            if !submission.logged {
                lastUnlogged = submission.ticket
            }
        }
        guard waitsForWrites, !(held.isEmpty && writer.progress.written >= lastUnlogged) else {
            return effects.immediate + effects.messages
        }
        if !effects.messages.isEmpty {
            held.append((lastUnlogged, effects.messages, .now))
        }
        return effects.immediate
    }

    /// The held messages whose writes are done, in order.
    /// - Throws: the writer's failure: the held messages are never sent.
    mutating func released() throws(StoreError) -> [Outgoing] {
        guard let writer else { return [] }
        let progress = writer.progress
        if let failure = progress.failure {
            held.removeAll()
            throw failure
        }
        let ready = held.prefix { $0.needs <= progress.written }.count
        guard ready > 0 else { return [] }
        let messages = held.prefix(ready).flatMap(\.messages)
        held.removeFirst(ready)
        return messages
    }

    /// Holds back for good the held messages that concern `sessions` (an instance of a fleet lost them: their
    /// inputs were not written).
    mutating func dropConcerning(_ sessions: Set<String>) {
        held = held.map { turn in
            (
                turn.needs, turn.messages.filter { message in message.session.map { !sessions.contains($0) } ?? true },
                turn.at
            )
        }
    }

    /// Waits until every group handed over is written (a stop), and returns what was held once written. A store
    /// that says it does not answer is waited for `giveUpAfter` at most, one that says nothing but writes nothing
    /// (a server that hangs) `giveUpStalledAfter`: then the writer stops retrying, and what waits is never sent.
    /// - Returns: the answers whose writes are done, and why the rest is not (`nil` when everything was written).
    mutating func drain(
        giveUpAfter wait: Duration,
        giveUpStalledAfter stalled: Duration = .seconds(20)
    ) -> (messages: [Outgoing], failure: (any Error)?) {
        guard let writer else { return ([], nil) }
        var messages: [Outgoing] = []
        var poller = Poller()
        poller.register(fileDescriptor: writer.written.fileDescriptor)
        let started = ContinuousClock.now
        var progressed = (ticket: writer.progress.written, at: started)
        while true {
            // Read before what is released: a write done in between is then released too, not left behind.
            let progress = writer.progress
            do {
                messages += try released()
            } catch {
                return (messages, error)
            }
            if progress.written >= lastTicket {
                return (messages, nil)
            }
            let now = ContinuousClock.now
            if progress.written != progressed.ticket {
                progressed = (progress.written, now)
            }
            let outage = writer.availability.outage
            if (outage != nil && now - started >= wait) || now - progressed.at >= stalled {
                writer.availability.abandon()
                let unsent = held.reduce(0) { $0 + $1.messages.count }
                let why = outage.map { "does not answer (\($0.reason))" } ?? "has written nothing for \(stalled)"
                return (
                    messages,
                    StoreError(
                        .unavailable,
                        "the store \(why): flowd stops without writing its last changes; \(unsent) answers that waited for them are not sent"
                    )
                )
            }
            do {
                _ = try poller.poll(timeout: .milliseconds(100))
            } catch {
                return (messages, error)
            }
            writer.written.drain()
        }
    }
}
