import Dispatch
import FlowStore
import Logging
import Synchronization
import ZeroMQ

/// flowd's journal writer: it takes the groups the event loop hands it, in order, and writes them to the store on
/// a thread of its own, several waiting groups in one transaction; after each transaction it says how far it got
/// and raises ``written``, which wakes the loop to send what waited for those groups.
///
/// A loaded loop never waits for the disk: while one transaction is written it goes on with the next turns, and
/// what they change joins the next transaction (group commit). A small group that finds the writer idle is written
/// at once on the loop's thread instead, as the first member of a database's group commit writes for its group: a
/// hand-off to another thread costs two wake-ups (about 35 µs on a small machine), more than the write itself, and
/// a lone step would wait for them. Either way one write happens at a time, in order.
///
/// After a write fails, nothing more is written: the loop learns it from ``progress`` and stops flowd rather than
/// acknowledge what is not written.
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
    }

    private struct Queue: ~Copyable {
        var groups: [(ticket: UInt64, group: StoreGroup)] = []
        var lastTicket: UInt64 = 0
        var progress = Progress()
        /// Whether a write is under way (on the writer's thread or the loop's): one at a time.
        var writing = false
        var closed = false
    }

    /// The largest group (in journal entries) written at once on the loop's thread when the writer is idle, by
    /// default.
    public static let largestGroupWrittenAtOnce = 16

    /// The largest group written at once on the submitting thread; `nil`: every group goes to the writer's thread.
    private let writtenAtOnceUpTo: Int?
    /// Raised after every transaction of the writer's thread and after a failure; the loop polls it.
    let written: WakePipe
    private let queue = Mutex(Queue())
    /// The store. Set once by ``attach(_:)``, before the first group is submitted; from then on it is used by one
    /// write at a time, which the queue's `writing` flag (set and cleared under its lock) orders.
    nonisolated(unsafe) private var store: (any SessionStore)?
    private let work = DispatchSemaphore(value: 0)
    private let logger: Logger
    /// Where each transaction's time goes (`flowd_journal_write_seconds`), with `--metrics`.
    private let metrics: DaemonMetrics?

    /// A writer with no store yet: the event loop attaches the one it restored the sessions from.
    /// - Parameter writtenAtOnceUpTo: the largest group (in journal entries) written at once on the submitting
    ///   thread when the writer is idle; `nil` sends every group to the writer's thread.
    /// - Parameter metrics: where each transaction's time goes; `nil` for nowhere.
    /// - Parameter logger: where a failed write is logged.
    /// - Throws: ``ZeroMQError`` when no pipe can be made for its signal.
    public init(
        writtenAtOnceUpTo: Int? = largestGroupWrittenAtOnce,
        metrics: DaemonMetrics? = nil,
        logger: Logger
    ) throws {
        self.writtenAtOnceUpTo = writtenAtOnceUpTo
        self.metrics = metrics
        self.logger = logger
        written = try WakePipe()
    }

    /// Hands the store over: from now on only the writer uses it.
    func attach(_ store: sending any SessionStore) {
        let statistics = store.statistics
        self.store = store
        queue.withLock { $0.progress.statistics = statistics }
    }

    /// Takes a group to write after those handed over before it: at once on the calling thread when nothing is
    /// being written or waits and the group is small (see ``init(writtenAtOnceUpTo:metrics:logger:)``), else by the writer's
    /// thread. After ``close()`` nothing more is taken: the group is refused through ``Progress/failure``.
    /// - Returns: its ticket: the group is written once ``Progress/written`` reaches it.
    func submit(_ group: StoreGroup) -> UInt64 {
        let small = writtenAtOnceUpTo.map { group.entries.count <= $0 } ?? false
        let (ticket, atOnce) = queue.withLock { queue -> (UInt64, Bool) in
            queue.lastTicket += 1
            if queue.closed {
                queue.progress.failure =
                    queue.progress.failure ?? StoreError(.unavailable, "the journal writer has stopped")
                return (queue.lastTicket, false)
            }
            if small && !queue.writing && queue.groups.isEmpty && queue.progress.failure == nil {
                queue.writing = true
                return (queue.lastTicket, true)
            }
            queue.groups.append((queue.lastTicket, group))
            queue.progress.waiting = queue.groups.count
            return (queue.lastTicket, false)
        }
        if atOnce {
            finish(write([group]), through: ticket)
        } else {
            work.signal()
        }
        return ticket
    }

    /// How far the writer got.
    var progress: Progress {
        queue.withLock { $0.progress }
    }

    /// Asks the writer to stop once every group handed over is written; ``run()`` then returns.
    public func close() {
        queue.withLock { $0.closed = true }
        work.signal()
    }

    /// The writer's thread: writes what is queued, in order, until ``close()``; then closes the store.
    public func run() {
        while true {
            work.wait()
            let batch = queue.withLock { queue -> [(ticket: UInt64, group: StoreGroup)]? in
                if queue.groups.isEmpty {
                    return queue.closed && !queue.writing ? nil : []
                }
                // A write at once on the loop's thread is under way: it signals when done.
                guard !queue.writing else { return [] }
                queue.writing = true
                let batch = queue.groups
                queue.groups.removeAll(keepingCapacity: true)
                return batch
            }
            guard let batch else { break }
            guard let last = batch.last?.ticket else { continue }
            finish(write(batch.map(\.group)), through: last)
            written.signal()
        }
        store = nil
    }

    /// Records how a write ended, and lets the next one start.
    private func finish(_ outcome: Result<StoreStatistics?, StoreError>, through ticket: UInt64) {
        let more = queue.withLock { queue in
            queue.writing = false
            queue.progress.waiting = queue.groups.count
            switch outcome {
            case .success(let statistics):
                queue.progress.written = ticket
                queue.progress.statistics = statistics
            case .failure(let error):
                queue.progress.failure = queue.progress.failure ?? error
            }
            return !queue.groups.isEmpty || queue.closed
        }
        if more {
            work.signal()
        }
        if case .failure = outcome {
            // The loop may hold answers for this write: it must learn that they will never be sent.
            written.signal()
        }
    }

    /// Writes the groups in one transaction, unless an earlier write failed (then nothing more is written: the
    /// journal must not have a hole).
    private func write(_ groups: [StoreGroup]) -> Result<StoreStatistics?, StoreError> {
        if let failure = queue.withLock({ $0.progress.failure }) {
            return .failure(failure)
        }
        guard let store else {
            return .failure(StoreError(.unavailable, "the journal writer has no store"))
        }
        do throws(StoreError) {
            let started = metrics == nil ? nil : ContinuousClock.now
            try store.commit(groups)
            if let started {
                metrics?.journalWritten(since: started)
            }
            return .success(store.statistics)
        } catch {
            logger.critical("cannot write the journal: \(error)")
            return .failure(error)
        }
    }
}
