import Dispatch
import FlowStore
import Logging
import Synchronization

/// flowd's journal writer: it takes the groups the event loop hands it, in order, and writes them to the store on
/// a thread of its own, several waiting groups in one transaction; after each transaction it says how far it got
/// and raises ``written``, which wakes the loop to send what waited for those groups.
///
/// The loop never waits for the disk: while one transaction is written it goes on with the next turn, and what that
/// turn changes joins the next transaction (group commit). After a write fails, nothing more is written: the loop
/// learns it from ``progress`` and stops flowd rather than acknowledge what is not written.
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
        var closed = false
    }

    /// Raised after every transaction and after a failure; the loop polls it.
    let written: WakeSignal
    private let queue = Mutex(Queue())
    /// The store. Set once by ``attach(_:)``, before the first group is submitted; from then on only the writer
    /// thread uses it, after taking a group from the queue — the queue's lock orders the two.
    nonisolated(unsafe) private var store: (any SessionStore)?
    private let work = DispatchSemaphore(value: 0)
    private let logger: Logger

    /// A writer with no store yet: the event loop attaches the one it restored the sessions from.
    /// - Throws: ``DaemonError`` when no eventfd can be made.
    public init(logger: Logger) throws {
        self.logger = logger
        written = try WakeSignal()
    }

    /// Hands the store over: from now on only the writer thread uses it.
    func attach(_ store: sending any SessionStore) {
        let statistics = store.statistics
        self.store = store
        queue.withLock { $0.progress.statistics = statistics }
    }

    /// Queues a group to write after those handed over before it.
    /// - Returns: its ticket: the group is written once ``Progress/written`` reaches it.
    /// After ``close()`` nothing more is taken: the group is refused through ``Progress/failure``.
    func submit(_ group: StoreGroup) -> UInt64 {
        let ticket = queue.withLock { queue in
            queue.lastTicket += 1
            if queue.closed {
                queue.progress.failure =
                    queue.progress.failure ?? StoreError(.unavailable, "the journal writer has stopped")
                return queue.lastTicket
            }
            queue.groups.append((queue.lastTicket, group))
            queue.progress.waiting = queue.groups.count
            return queue.lastTicket
        }
        work.signal()
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
                    return queue.closed ? nil : []
                }
                let batch = queue.groups
                queue.groups.removeAll(keepingCapacity: true)
                return batch
            }
            guard let batch else { break }
            guard let last = batch.last?.ticket else { continue }
            let outcome = write(batch.map(\.group))
            queue.withLock { queue in
                queue.progress.waiting = queue.groups.count
                switch outcome {
                case .success(let statistics):
                    queue.progress.written = last
                    queue.progress.statistics = statistics
                case .failure(let error):
                    queue.progress.failure = queue.progress.failure ?? error
                }
            }
            written.raise()
        }
        store = nil
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
            try store.commit(groups)
            return .success(store.statistics)
        } catch {
            logger.critical("cannot write the journal: \(error)")
            return .failure(error)
        }
    }
}
