internal import CSQLite
import Foundation
import Synchronization

/// Copies the write-ahead log back into the database file on a thread and a connection of its own, so that no
/// commit waits for it.
///
/// SQLite's own checkpoint runs inside the commit that crosses its threshold: that commit copies a thousand pages
/// and flushes both files before it returns, and the step whose group it wrote waits several milliseconds (one in
/// a few hundred, with one step in flight: the tail of flowd's latency). Here the writing connection only asks
/// (``request()``), and this connection checkpoints beside it, on its own thread.
///
/// The log starts again only at a commit that finds all of it copied. Under writes that never pause, a passive
/// checkpoint ends behind the commits made while it ran: the checkpointer then copies what they added with the writes
/// held (a few pages and the flushes, where SQLite's own checkpoint holds them for a thousand pages). Should it fall
/// behind all the same (the disk is slower than the writes), the writing connection checkpoints a log of
/// ``pagesForcingACheckpoint`` itself, waiting for the checkpointer's turn if need be: the log stays bounded.
///
/// `@unchecked Sendable`: its connection is used by its thread alone; the rest is behind a lock.
final class SQLiteCheckpointer: @unchecked Sendable {
    /// Pages of log after which a checkpoint is asked for (SQLite's default threshold).
    static let pagesWorthACheckpoint: Int32 = 1000
    /// Pages of log after which the writing connection checkpoints itself (the log's bound under writes that never
    /// pause).
    static let pagesForcingACheckpoint: Int32 = 2 * pagesWorthACheckpoint

    private struct State {
        var requested = false
        var stopped = false
        var checkpoints = 0
    }

    private let database: SQLiteDatabase
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Opens a connection of its own to the database at `path` (in WAL mode already) and starts its thread.
    init(path: String) throws(StoreError) {
        database = try SQLiteDatabase(path: path)
        // The checkpoint flushes the log, then the database file, before the log may start again.
        try database.execute("PRAGMA synchronous=NORMAL")
        // RESTART waits for the commit under way, and for readers to leave the log (another program reading the
        // file), holding the writes meanwhile: a short while only. Past it the log goes on growing, up to its bound.
        database.waitBriefly(upTo: .milliseconds(20))
        let thread = Thread { [self] in run() }
        thread.name = "flowd-checkpoint"
        thread.start()
    }

    /// Asks for a checkpoint; returns at once (asks made before it is done make no other).
    func request() {
        let wakes = state.withLock { state in
            guard !state.requested, !state.stopped else { return false }
            state.requested = true
            return true
        }
        if wakes {
            wake.signal()
        }
    }

    /// Checkpoints done so far.
    var checkpoints: Int {
        state.withLock { $0.checkpoints }
    }

    /// Stops the thread once the checkpoint under way (if any) is done, and closes its connection before it
    /// returns. It closed with the object, after `stop()` had returned, on whichever thread let the object go last:
    /// a store opened again at once on the same file could meet it (one was refused `locked` in CI).
    func stop() {
        let running = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard running else { return }
        wake.signal()
        finished.wait()
    }

    private func run() {
        while true {
            wake.wait()
            if state.withLock({ $0.stopped }) {
                break
            }
            // First the bulk, beside the writes; then what was committed meanwhile, with the writes held for that
            // short while (RESTART waits for the commit under way, copies the rest and flushes), so that the next
            // commit starts the log again: checkpoints that only ran beside the writes would each end behind them.
            // A failure (the disk, a lock held too long) leaves the log as it is: the next ask tries again, and the
            // writing connection bounds the log meanwhile.
            let copied =
                (try? database.execute("PRAGMA wal_checkpoint(PASSIVE)")) != nil
                && (try? database.execute("PRAGMA wal_checkpoint(RESTART)")) != nil
            state.withLock { state in
                state.requested = false
                state.checkpoints += copied ? 1 : 0
            }
        }
        database.close()
        finished.signal()
    }
}

extension SQLiteDatabase {
    /// Hands this connection's checkpoints to `checkpointer`: after each commit, a log of
    /// ``SQLiteCheckpointer/pagesWorthACheckpoint`` pages asks it for one, and a log of
    /// ``SQLiteCheckpointer/pagesForcingACheckpoint`` is checkpointed here and now.
    func checkpoint(with checkpointer: SQLiteCheckpointer) {
        sqlite3_wal_hook(
            handle,
            { context, connection, _, pages in
                if pages >= SQLiteCheckpointer.pagesForcingACheckpoint {
                    // SQLite does not wait for a checkpoint under way (the checkpointer's): this one waits its turn,
                    // in sleeps of 50 µs, up to a second. Passive: it never waits for a reader (a program reading the
                    // file), which would hold the writes as long as it reads.
                    var attempt = 0
                    while sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                        == SQLITE_BUSY, attempt < 20_000
                    {
                        usleep(50)
                        attempt += 1
                    }
                } else if pages >= SQLiteCheckpointer.pagesWorthACheckpoint, let context {
                    Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue().request()
                }
                return SQLITE_OK
            },
            Unmanaged.passUnretained(checkpointer).toOpaque()
        )
    }

    /// Waits for another connection's lock (a commit, the end of a checkpoint) in sleeps of 50 µs, up to `limit`:
    /// SQLite's own busy timeout sleeps a millisecond at first, then longer.
    func waitBriefly(upTo limit: Duration) {
        let attempts = Int32(clamping: limit.microseconds / 50)
        sqlite3_busy_handler(
            handle,
            { context, attempt in
                guard attempt < Int32(truncatingIfNeeded: Int(bitPattern: context)) else { return 0 }
                usleep(50)
                return 1
            },
            UnsafeMutableRawPointer(bitPattern: Int(attempts))
        )
    }

    /// Stops handing checkpoints over (before the checkpointer goes).
    func stopCheckpointing() {
        sqlite3_wal_hook(handle, nil, nil)
    }
}
