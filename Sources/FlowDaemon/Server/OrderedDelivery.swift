import FlowStore
import ZeroMQ

/// Holds each turn's messages until what the turn changed is written, and lets them go in the order of the turns.
///
/// A turn that changed nothing still waits for the turns before it: its answers (a query's reply, a fate already
/// known) must not describe a state that a crash could still take back.
struct OrderedDelivery {
    private let writer: JournalWriter?
    private let waitsForWrites: Bool
    private var held: [(ticket: UInt64, messages: [Outgoing])] = []
    private var lastTicket: UInt64 = 0

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

    /// Takes a turn's effects: hands the writes to the writer, and returns the messages that may leave now (those
    /// that describe no state always do).
    mutating func take(_ effects: TurnEffects) -> [Outgoing] {
        guard let writer else { return effects.immediate + effects.messages }
        if !effects.persist.isEmpty {
            lastTicket = writer.submit(effects.persist)
        }
        guard waitsForWrites, !(held.isEmpty && writer.progress.written >= lastTicket) else {
            return effects.immediate + effects.messages
        }
        if !effects.messages.isEmpty {
            held.append((lastTicket, effects.messages))
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
        let ready = held.prefix { $0.ticket <= progress.written }.count
        guard ready > 0 else { return [] }
        let messages = held.prefix(ready).flatMap(\.messages)
        held.removeFirst(ready)
        return messages
    }

    /// Holds back for good the held messages that concern `sessions` (an instance of a fleet lost them: their
    /// inputs were not written).
    mutating func dropConcerning(_ sessions: Set<String>) {
        held = held.map { turn in
            (turn.ticket, turn.messages.filter { message in message.session.map { !sessions.contains($0) } ?? true })
        }
    }

    /// Waits until every group handed over is written (a stop), then returns what was held. A store that does not
    /// answer is waited for `giveUpAfter` at most: then the writer stops retrying, and what waits is never sent.
    /// - Throws: the writer's failure, or ``StoreError`` `.unavailable` when the store was given up.
    mutating func drain(giveUpAfter wait: Duration) throws -> [Outgoing] {
        guard let writer else { return [] }
        var poller = Poller()
        poller.register(fileDescriptor: writer.written.fileDescriptor)
        var messages: [Outgoing] = []
        let started = ContinuousClock.now
        while true {
            messages += try released()
            let progress = writer.progress
            if progress.written >= lastTicket {
                return messages
            }
            if let outage = writer.availability.outage, ContinuousClock.now - started >= wait {
                writer.availability.abandon()
                let unsent = held.reduce(0) { $0 + $1.messages.count }
                throw StoreError(
                    .unavailable,
                    "the store does not answer (\(outage.reason)): flowd stops without writing its last changes; \(unsent) answers that waited for them are not sent"
                )
            }
            _ = try poller.poll(timeout: .milliseconds(100))
            writer.written.drain()
        }
    }
}
