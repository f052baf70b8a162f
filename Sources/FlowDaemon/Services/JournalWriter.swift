import Dispatch
import FlowStore
import Foundation
import Logging
import Synchronization
import ZeroMQ

/// flowd's journal writer: it takes the groups the event loop hands it, in order, and writes them to the store on
/// a thread of its own, several waiting groups in one transaction; after each transaction it says how far it got
/// and raises `written`, which wakes the loop to send what waited for those groups.
///
/// A loaded loop never waits for the disk: while one transaction is written it goes on with the next turns, and
/// what they change joins the next transaction (group commit). A small group that finds the writer idle is written
/// at once on the loop's thread instead, as the first member of a database's group commit writes for its group: a
/// hand-off to another thread costs two wake-ups (about 35 µs on a small machine), more than the write itself, and
/// a lone step would wait for them. Either way one write happens at a time, in order.
///
/// A write that fails for want of the store (a full disk, a database that is down) is tried again, on the writer's
/// thread, while ``availability`` allows (its retry window from the start of the outage); the outage is told there,
/// and the loop reads it. After a write fails for good, nothing more is written: the loop learns it from
/// `progress` and stops flowd rather than acknowledge what is not written.
///
/// With a fleet's store, the writer also asks the store where sessions are served and takes over dead instances'
/// sessions (`ask(_:)`), in order with the writes: the store is used by one thread at a time, and a question asked
/// after a turn's group is answered after that group is written.
public final class JournalWriter: Sendable {
    /// How far the writer got.
    struct Progress: Sendable {
        /// Every group up to this ticket is written.
        var written: UInt64 = 0
        /// Groups handed over and not yet written.
        var waiting = 0
        /// Why writing stopped, if it did.
        var failure: StoreError?
        /// The store's figures after the last transaction.
        var statistics: StoreStatistics?
        /// Sessions the store refused to write since ``takeLostSessions()`` last took them: another instance of the
        /// fleet owns them now.
        var lostSessions: Set<String> = []
    }

    /// What the writer does next, in order.
    private enum Task {
        case write(ticket: UInt64, StoreGroup)
        case ask(FleetRequest)
    }

    private struct Queue: ~Copyable {
        var tasks: [Task] = []
        var lastTicket: UInt64 = 0
        var progress = Progress()
        var answers: [FleetAnswer] = []
        /// The largest group written at once on the submitting thread; `nil`: none.
        var writtenAtOnceUpTo: Int?
        /// Whether a write is under way (on the writer's thread or the loop's): one at a time.
        var writing = false
        var closed = false
    }

    /// How long the writer's thread gathers groups that are in the ahead log before it writes them in one transaction.
    static let aheadLogGathering: TimeInterval = 0.01

    /// The largest group (in journal entries) written at once on the loop's thread when the writer is idle, by
    /// default.
    public static let largestGroupWrittenAtOnce = 16

    /// Raised after every transaction of the writer's thread and after a failure; the loop polls it.
    let written: WakePipe
    /// Whether the store answers; how long a write is retried when it does not.
    public let availability: StoreAvailability
    private let queue = Mutex(Queue())
    /// The store. Set once by ``attach(_:)``, before the first group is submitted; from then on it is used by one
    /// write at a time, which the queue's `writing` flag (set and cleared under its lock) orders.
    nonisolated(unsafe) private var store: (any SessionStore)?
    /// Where groups go ahead of their transaction (durability `os`): used by the submitting thread alone. Set once
    /// by ``attach(_:aheadLog:)``.
    nonisolated(unsafe) private var aheadLog: AheadLog?
    /// The epoch of ``aheadLog``'s records, for the marker the writer's thread writes with each transaction (that
    /// thread never touches the log itself).
    nonisolated(unsafe) private var aheadLogEpoch: UInt64?
    private let work = DispatchSemaphore(value: 0)
    private let logger: Logger
    /// Where each transaction's time goes (`flowd_journal_write_seconds`), with `--metrics`.
    private let metrics: DaemonMetrics?

    /// A writer with no store yet: the event loop attaches the one it restored the sessions from.
    /// - Parameter writtenAtOnceUpTo: the largest group (in journal entries) written at once on the submitting
    ///   thread when the writer is idle; `nil` sends every group to the writer's thread.
    /// - Parameter metrics: where each transaction's time goes; `nil` for nowhere.
    /// - Parameter logger: where a failed write is logged.
    /// - Parameter availability: where outages are told, and how long a write is retried in one.
    /// - Throws: `ZeroMQError` when no pipe can be made for its signal.
    public init(
        writtenAtOnceUpTo: Int? = largestGroupWrittenAtOnce,
        metrics: DaemonMetrics? = nil,
        availability: StoreAvailability = StoreAvailability(),
        logger: Logger
    ) throws {
        self.availability = availability
        queue.withLock { $0.writtenAtOnceUpTo = writtenAtOnceUpTo }
        self.metrics = metrics
        self.logger = logger
        written = try WakePipe()
    }

    /// Hands the store over: from now on only the writer uses it. A fleet's store is written on the writer's thread
    /// only: its writes cross the network, and may wait for a server that restarts.
    /// With `aheadLog`, each group is copied into it as it is submitted and counts as written to the operating
    /// system at once (``submitLoggingAhead(_:)``); the writer's thread then writes the groups of a few milliseconds
    /// in one transaction, with the marker that says how far the store got.
    func attach(_ store: sending any SessionStore, aheadLog: AheadLog? = nil) {
        let statistics = store.statistics
        let remote = store is any FleetStore
        self.store = store
        self.aheadLog = aheadLog
        aheadLogEpoch = aheadLog?.epoch
        queue.withLock {
            $0.progress.statistics = statistics
            if remote || aheadLog != nil {
                $0.writtenAtOnceUpTo = nil
            }
        }
    }

    /// Takes a group to write after those handed over before it: at once on the calling thread when nothing is
    /// being written or waits and the group is small (see ``init(writtenAtOnceUpTo:metrics:availability:logger:)``), else by the writer's
    /// thread. After ``close()`` nothing more is taken: the group is refused through ``Progress/failure``.
    /// - Returns: its ticket: the group is written once ``Progress/written`` reaches it.
    func submit(_ group: StoreGroup) -> UInt64 {
        submitLoggingAhead(group).ticket
    }

    /// Takes a group as ``submit(_:)`` does, and copies it into the ahead log first when there is one.
    /// - Returns: its ticket, and whether it is in the ahead log (written to the operating system: it survives the
    ///   process), or waits for its transaction (no ahead log, or no room in it).
    func submitLoggingAhead(_ group: StoreGroup) -> (ticket: UInt64, logged: Bool) {
        // While the store does not answer, answers wait for it as they do without an ahead log: steps stay
        // unacknowledged through an outage. (Groups logged before the outage began were answered: the next start
        // writes them to the store.)
        guard let aheadLog, availability.outage == nil else { return (enqueue(group), false) }
        // Once closed, or after a write failed for good, nothing more is taken: the group is refused through the
        // failure, and is not logged ahead (nothing that follows may be acknowledged).
        let (ticket, written, taken) = queue.withLock { queue in
            queue.lastTicket += 1
            if queue.closed {
                queue.progress.failure =
                    queue.progress.failure ?? StoreError(.unavailable, "the journal writer has stopped")
            }
            return (queue.lastTicket, queue.progress.written, queue.progress.failure == nil)
        }
        guard taken else { return (ticket, false) }
        aheadLog.stored(through: written)
        let logged = aheadLog.append(group, ticket: ticket)
        queue.withLock { queue in
            queue.tasks.append(.write(ticket: ticket, group))
            queue.progress.waiting += 1
        }
        work.signal()
        return (ticket, logged)
    }

    private func enqueue(_ group: StoreGroup) -> UInt64 {
        let (ticket, atOnce) = queue.withLock { queue -> (UInt64, Bool) in
            let small = queue.writtenAtOnceUpTo.map { group.holdsEntries(atMost: $0) } ?? false
            queue.lastTicket += 1
            if queue.closed {
                queue.progress.failure =
                    queue.progress.failure ?? StoreError(.unavailable, "the journal writer has stopped")
                return (queue.lastTicket, false)
            }
            if small && !queue.writing && queue.tasks.isEmpty && queue.progress.failure == nil {
                queue.writing = true
                return (queue.lastTicket, true)
            }
            queue.tasks.append(.write(ticket: queue.lastTicket, group))
            queue.progress.waiting += 1
            return (queue.lastTicket, false)
        }
        if atOnce {
            let outcome = write([group], retrying: false)
            if case .failure(let error) = outcome, error.code == .unavailable, availability.shouldRetry {
                // The loop's thread never waits for the store: the writer's thread tries again, ahead of what came
                // meanwhile.
                queue.withLock { queue in
                    queue.tasks.insert(.write(ticket: ticket, group), at: 0)
                    queue.progress.waiting += 1
                }
                finish(nil, through: nil)
            } else {
                finish(outcome, through: ticket)
            }
        } else {
            work.signal()
        }
        return ticket
    }

    /// Asks the fleet's store something, after the groups submitted before; the answer comes through
    /// ``takeAnswers()`` once ``written`` is raised.
    func ask(_ request: FleetRequest) {
        queue.withLock { $0.tasks.append(.ask(request)) }
        work.signal()
    }

    /// The answers to ``ask(_:)`` that came since the last call, in the order asked.
    func takeAnswers() -> [FleetAnswer] {
        queue.withLock { queue in
            defer { queue.answers.removeAll() }
            return queue.answers
        }
    }

    /// The sessions the store refused to write since the last call (another instance owns them now).
    func takeLostSessions() -> Set<String> {
        queue.withLock { queue in
            defer { queue.progress.lostSessions.removeAll() }
            return queue.progress.lostSessions
        }
    }

    /// How far the writer got.
    var progress: Progress {
        queue.withLock { $0.progress }
    }

    /// Asks the writer to stop once every group handed over is written; ``run()`` then returns. While the store
    /// does not answer, it is not waited for: what is not written yet never will be (it was not acknowledged).
    public func close() {
        queue.withLock { $0.closed = true }
        if availability.outage != nil {
            availability.abandon()
        }
        work.signal()
    }

    /// The writer's thread: writes what is queued, in order, until ``close()``; then closes the store. Groups in a
    /// row are written in one transaction; a question to the fleet's store is answered between them.
    public func run() {
        while true {
            work.wait()
            if aheadLogEpoch != nil && !queue.withLock({ $0.closed }) {
                // The groups are in the ahead log already: those of the next few milliseconds join this transaction.
                // Their signals are taken with them (each task is queued before it signals): one pause a batch.
                Thread.sleep(forTimeInterval: Self.aheadLogGathering)
                while work.wait(timeout: .now()) == .success {}
            }
            let batch = queue.withLock { queue -> [Task]? in
                if queue.tasks.isEmpty {
                    return queue.closed && !queue.writing ? nil : []
                }
                // A write at once on the loop's thread is under way: it signals when done.
                guard !queue.writing else { return [] }
                queue.writing = true
                let batch = queue.tasks
                queue.tasks.removeAll(keepingCapacity: true)
                return batch
            }
            guard let batch else { break }
            guard !batch.isEmpty else { continue }
            var groups: [StoreGroup] = []
            var last: UInt64 = 0
            for task in batch {
                switch task {
                case .write(let ticket, let group):
                    groups.append(group)
                    last = ticket
                case .ask(let request):
                    if !groups.isEmpty {
                        settle(write(groups, retrying: true), through: last)
                        groups.removeAll()
                        written.signal()
                    }
                    let answer = answer(request)
                    queue.withLock { $0.answers.append(answer) }
                    written.signal()
                }
            }
            if !groups.isEmpty {
                if let aheadLogEpoch {
                    groups[groups.count - 1].metadata[AheadLog.metadataKey] = AheadLog.marker(
                        epoch: aheadLogEpoch,
                        through: last
                    )
                }
                settle(write(groups, retrying: true), through: last)
            }
            finish(nil, through: nil)
            written.signal()
        }
        store = nil
    }

    /// Records a write done on the writer's thread, the write flag staying up for the rest of the batch.
    private func settle(_ outcome: Result<WriteOutcome, StoreError>, through ticket: UInt64) {
        queue.withLock { queue in
            queue.progress.waiting = queue.tasks.reduce(0) { if case .write = $1 { $0 + 1 } else { $0 } }
            record(outcome, through: ticket, in: &queue.progress)
        }
    }

    /// What a write did: the store's figures after it, and the sessions it was refused.
    struct WriteOutcome {
        var statistics: StoreStatistics?
        var lost: [String] = []
    }

    private func record(
        _ outcome: Result<WriteOutcome, StoreError>,
        through ticket: UInt64,
        in progress: inout Progress
    ) {
        switch outcome {
        case .success(let written):
            progress.written = ticket
            progress.statistics = written.statistics
            progress.lostSessions.formUnion(written.lost)
        case .failure(let error):
            progress.failure = progress.failure ?? error
        }
    }

    /// Answers a question to the fleet's store.
    private func answer(_ request: FleetRequest) -> FleetAnswer {
        guard let fleet = store as? any FleetStore else {
            let error = StoreError(.unavailable, "this flowd's store is not a fleet's")
            switch request {
            case .locate(let session, _): return .located(session, .failure(error))
            case .adoptOrphans: return .adopted(.failure(error))
            case .owned: return .owned(.failure(error))
            case .members: return .members(.failure(error))
            }
        }
        switch request {
        case .locate(let session, let claiming):
            // Not while the store does not answer: the HELLO is answered storeUnavailable, and a claim made when
            // the store comes back would create what nobody waits for.
            if let outage = availability.outage {
                return .located(session, .failure(StoreError(.unavailable, outage.reason)))
            }
            return .located(session, Result { () throws(StoreError) in try fleet.locate(session, claiming: claiming) })
        case .adoptOrphans(let limit):
            return .adopted(Result { () throws(StoreError) in try fleet.adoptOrphans(limit: limit) })
        case .owned:
            return .owned(Result { () throws(StoreError) in try fleet.ownedSessionsIfTaken() })
        case .members:
            return .members(Result { () throws(StoreError) in try fleet.members() })
        }
    }

    /// Records how a write ended (`nil`: what the batch wrote is recorded already), and lets the next one start.
    private func finish(_ outcome: Result<WriteOutcome, StoreError>?, through ticket: UInt64?) {
        let (more, failed) = queue.withLock { queue in
            queue.writing = false
            if let outcome, let ticket {
                record(outcome, through: ticket, in: &queue.progress)
            }
            queue.progress.waiting = queue.tasks.reduce(0) { if case .write = $1 { $0 + 1 } else { $0 } }
            return (!queue.tasks.isEmpty || queue.closed, queue.progress.failure != nil)
        }
        if more {
            work.signal()
        }
        if failed {
            // The loop may hold answers for this write: it must learn that they will never be sent.
            written.signal()
        }
    }

    /// Writes the groups in one transaction, unless an earlier write failed (then nothing more is written: the
    /// journal must not have a hole). With `retrying`, a write that fails for want of the store is tried again every
    /// quarter second while ``availability`` allows (a transaction that failed wrote nothing).
    private func write(_ groups: [StoreGroup], retrying: Bool) -> Result<WriteOutcome, StoreError> {
        while true {
            if let failure = queue.withLock({ $0.progress.failure }) {
                return .failure(failure)
            }
            let outcome = writeOnce(groups)
            guard case .failure(let error) = outcome, error.code == .unavailable else {
                if case .success = outcome {
                    availability.answered()
                }
                return outcome
            }
            availability.failed(error.message)
            // A fleet's store retries lost connections itself, and knows whether a cut commit went through: when it
            // gives up, the error is final (writing the groups again could write them twice).
            guard availability.shouldRetry, !(store is any FleetStore) else {
                let final = availability.gaveUp(error)
                logger.critical("cannot write the journal: \(final)")
                return .failure(final)
            }
            guard retrying else { return outcome }
            Thread.sleep(forTimeInterval: 0.25)
        }
    }

    /// Writes the groups in one transaction, once.
    private func writeOnce(_ groups: [StoreGroup]) -> Result<WriteOutcome, StoreError> {
        guard let store else {
            return .failure(StoreError(.unavailable, "the journal writer has no store"))
        }
        do throws(StoreError) {
            let started = metrics == nil ? nil : ContinuousClock.now
            let lost = try store.commit(groups)
            if let started {
                metrics?.journalWritten(since: started)
            }
            if !lost.isEmpty {
                logger.warning(
                    "sessions taken over by another instance: their last inputs are not written, and not answered",
                    metadata: ["sessions": "\(lost.joined(separator: " "))"]
                )
            }
            return .success(WriteOutcome(statistics: store.statistics, lost: lost))
        } catch {
            if error.code != .unavailable {
                logger.critical("cannot write the journal: \(error)")
            }
            return .failure(error)
        }
    }
}
