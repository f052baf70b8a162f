import Foundation

/// The embedded store: one SQLite database file in WAL mode, written one transaction per group, its log copied back
/// into the file by a checkpointer beside the writes (`SQLiteCheckpointer`).
///
/// The file says what it is: its `application_id` is FlowBus's and its `user_version` the format version. A file
/// that is not a database, belongs to another program or was written in a newer format is refused, never
/// overwritten. A write cut short (flowd killed mid-write) is rolled back by SQLite when the file is next opened:
/// the store holds every group that was committed, and nothing of the one that was not.
///
/// `@unchecked Sendable`: a store is handed from thread to thread (opened by flowd's main thread, then written by
/// the journal writer's), and used by one at a time.
public final class SQLiteStore: SessionStore, @unchecked Sendable {
    /// The format this FlowBus writes and reads.
    public static let formatVersion: Int64 = 1
    /// "FBUS": marks a FlowBus state file.
    public static let applicationID: Int64 = 0x4642_5553

    private let database: SQLiteDatabase
    private let checkpointer: SQLiteCheckpointer
    private let durability: Durability
    private let begin: SQLiteStatement
    private let commitTransaction: SQLiteStatement
    private let insertEntry: SQLiteStatement
    private let upsertSnapshot: SQLiteStatement
    private let deleteEntries: SQLiteStatement
    private let deleteSnapshot: SQLiteStatement
    private let upsertMetadata: SQLiteStatement
    private var counts = StoreStatistics()
    private var totalWriteMicroseconds = 0
    /// When the files' size was last looked up.
    private var sizeMeasured: ContinuousClock.Instant?
    /// Keeps other stores out of the file while this one is open (released with the store, once nothing is written).
    private let claim: SQLiteFileLock

    /// Opens the state file at `path`, creating it when missing.
    /// - Throws: ``StoreError`` `.corrupted`, `.foreign` or `.newerFormat` for a file flowd must not use, and
    ///   `.unavailable` when it cannot be opened.
    public init(path: String, durability: Durability) throws(StoreError) {
        try Self.createIfMissing(path)
        claim = try SQLiteFileLock(path: path)
        database = try SQLiteDatabase(path: path)
        self.durability = durability
        try Self.check(database)
        // WAL: a writer never blocks on readers, and a commit appends to the log instead of rewriting pages.
        try database.execute("PRAGMA journal_mode=WAL")
        // NORMAL in WAL mode: a commit is written to the operating system without a flush, and the log is flushed at
        // checkpoints, so that a power loss may lose the last commits but never leaves the file inconsistent.
        try database.execute(durability == .fsync ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL")
        // The log is copied back into the file by a connection of its own, beside the writes (not in the commit that
        // crosses SQLite's threshold): a second connection, so the log's index is shared (flowd.db-shm), and the
        // file is locked per transaction. flowd.lock keeps other flowd processes out all the same.
        database.waitBriefly(upTo: .seconds(1))
        begin = try database.prepare("BEGIN IMMEDIATE")
        commitTransaction = try database.prepare("COMMIT")
        insertEntry = try database.prepare("INSERT INTO journal(session, entry) VALUES (?1, ?2)")
        upsertSnapshot = try database.prepare(
            "INSERT INTO sessions(session, snapshot) VALUES (?1, ?2) ON CONFLICT(session) DO UPDATE SET snapshot = ?2"
        )
        deleteEntries = try database.prepare("DELETE FROM journal WHERE session = ?1")
        deleteSnapshot = try database.prepare("DELETE FROM sessions WHERE session = ?1")
        upsertMetadata = try database.prepare(
            "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2"
        )
        // Last: from here on a failure ends the store through its deinit, which stops the checkpointer's thread.
        checkpointer = try SQLiteCheckpointer(path: path)
        database.checkpoint(with: checkpointer)
        counts.location = path
        counts.durability = durability.rawValue
        counts.snapshots = Int(try database.integer("SELECT count(*) FROM sessions"))
        counts.journalEntries = Int(try database.integer("SELECT count(*) FROM journal"))
    }

    deinit {
        database.stopCheckpointing()
        checkpointer.stop()
    }

    /// A new state file is made whole under another name, then renamed: a file at `path` is always one flowd
    /// made, and an empty one (cut to nothing by accident) is refused rather than taken for a new one.
    private static func createIfMissing(_ path: String) throws(StoreError) {
        let files = FileManager.default
        if let size = (try? files.attributesOfItem(atPath: path))?[.size] as? NSNumber {
            let log = (try? files.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber
            guard size.intValue > 0 || (log?.intValue ?? 0) > 0 else {
                throw StoreError(
                    .corrupted,
                    "\(path) is empty: it was cut to nothing, or made by something else; move it away to start empty"
                )
            }
            return
        }
        let staging = path + ".new"
        try? files.removeItem(atPath: staging)
        do {
            let database = try SQLiteDatabase(path: staging)
            try create(in: database)
        }
        guard rename(staging, path) == 0 else {
            throw StoreError(.unavailable, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// The tables of a new file.
    private static func create(in database: SQLiteDatabase) throws(StoreError) {
        try database.execute(
            """
            BEGIN;
            CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
            CREATE TABLE sessions(session TEXT PRIMARY KEY, snapshot BLOB NOT NULL);
            CREATE TABLE journal(position INTEGER PRIMARY KEY, session TEXT NOT NULL, entry BLOB NOT NULL);
            CREATE INDEX journal_by_session ON journal(session);
            PRAGMA application_id = \(applicationID);
            PRAGMA user_version = \(formatVersion);
            COMMIT;
            """
        )
    }

    /// Checks that a file is FlowBus's, whole, in a format this one reads.
    private static func check(_ database: SQLiteDatabase) throws(StoreError) {
        let application = try database.integer("PRAGMA application_id")
        let version = try database.integer("PRAGMA user_version")
        guard application == applicationID else {
            throw StoreError(
                .foreign,
                "\(database.path) is an SQLite database of another program (application id \(application)); give flowd a state directory of its own"
            )
        }
        guard version <= formatVersion else {
            throw StoreError(
                .newerFormat,
                "\(database.path) was written by a newer FlowBus (state format \(version); this flowd reads up to \(formatVersion)); run that version, or move the file away to start empty"
            )
        }
        guard version == formatVersion else {
            throw StoreError(
                .corrupted,
                "\(database.path) says state format \(version), which no FlowBus wrote; move it away to start empty"
            )
        }
        let tables = try database.integer(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('meta', 'sessions', 'journal')"
        )
        guard tables == 3 else {
            throw StoreError(
                .corrupted,
                "\(database.path) is damaged: tables of FlowBus's state are missing; restore it from a backup, or move it away to start empty"
            )
        }
    }

    /// One value of the metadata (`nil` when not set), read without loading the rest.
    public func metadataValue(_ key: String) throws(StoreError) -> String? {
        let statement = try database.prepare("SELECT value FROM meta WHERE key = ?1")
        statement.bind(key, at: 1)
        return try statement.step() ? statement.text(at: 0) : nil
    }

    public func load() throws(StoreError) -> StoredState {
        var state = StoredState()
        let metadata = try database.prepare("SELECT key, value FROM meta")
        while try metadata.step() {
            state.metadata[metadata.text(at: 0)] = metadata.text(at: 1)
        }
        let snapshots = try database.prepare("SELECT session, snapshot FROM sessions")
        while try snapshots.step() {
            state.snapshots.append(SnapshotRecord(session: snapshots.text(at: 0), bytes: snapshots.bytes(at: 1)))
        }
        let entries = try database.prepare("SELECT session, entry FROM journal ORDER BY position")
        while try entries.step() {
            state.entries.append(JournalRecord(session: entries.text(at: 0), bytes: entries.bytes(at: 1)))
        }
        return state
    }

    @discardableResult
    public func commit(_ groups: [StoreGroup]) throws(StoreError) -> [String] {
        guard groups.contains(where: { !$0.isEmpty }) else { return [] }
        let started = ContinuousClock.now
        try begin.run()
        do {
            for group in groups {
                try write(group)
            }
            try commitTransaction.run()
        } catch {
            try? database.execute("ROLLBACK")
            counts.journalEntries = Int((try? database.integer("SELECT count(*) FROM journal")) ?? 0)
            throw error
        }
        let snapshots = groups.reduce(0) { $0 + $1.snapshots.count }
        counts.snapshotsWritten += snapshots
        if snapshots > 0 || groups.contains(where: { !$0.removed.isEmpty }) {
            counts.snapshots = Int(try database.integer("SELECT count(*) FROM sessions"))
        }
        let elapsed = ContinuousClock.now - started
        counts.noteTransaction(of: groups, microseconds: elapsed.microseconds, total: &totalWriteMicroseconds)
        return []
    }

    /// One group's rows, inside the open transaction.
    private func write(_ group: StoreGroup) throws(StoreError) {
        // Ended sessions go first: a session started again in the same group keeps its new entries.
        for session in group.removed {
            try removeEntries(of: session)
            deleteSnapshot.bind(session, at: 1)
            try deleteSnapshot.run()
        }
        for entry in group.entries {
            insertEntry.bind(entry.session, at: 1)
            insertEntry.bind(entry.bytes, at: 2)
            try insertEntry.run()
        }
        counts.journalEntries += group.entries.count
        for snapshot in group.snapshots {
            upsertSnapshot.bind(snapshot.session, at: 1)
            upsertSnapshot.bind(snapshot.bytes, at: 2)
            try upsertSnapshot.run()
            try removeEntries(of: snapshot.session)
        }
        for (key, value) in group.metadata {
            upsertMetadata.bind(key, at: 1)
            upsertMetadata.bind(value, at: 2)
            try upsertMetadata.run()
        }
    }

    private func removeEntries(of session: String) throws(StoreError) {
        deleteEntries.bind(session, at: 1)
        try deleteEntries.run()
        counts.journalEntries -= database.changes
    }

    /// Checkpoints the checkpointer made so far (the log copied back into the file beside the writes).
    var checkpoints: Int {
        checkpointer.checkpoints
    }

    /// Asks the checkpointer for a checkpoint now, as a commit past the threshold does.
    func requestCheckpoint() {
        checkpointer.request()
    }

    /// What the store holds and how fast it writes; cheap enough to read after every group (the files' size is
    /// looked up at most once a second).
    public var statistics: StoreStatistics {
        let now = ContinuousClock.now
        if sizeMeasured.map({ now - $0 >= .seconds(1) }) ?? true {
            sizeMeasured = now
            counts.bytes = [database.path, database.path + "-wal"].reduce(0) { total, path in
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
                return total + (size ?? 0)
            }
        }
        return counts
    }
}
