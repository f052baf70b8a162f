/// Where flowd keeps its sessions: a journal of the inputs that changed them, and a snapshot per session that
/// replaces the journal entries before it. One interface, two homes: SQLite in a state directory (embedded, the
/// default) and, for a fleet, PostgreSQL.
///
/// A store is used by one thread at a time; every call blocks until the disk has answered.
public protocol SessionStore: AnyObject {
    /// Everything stored: the metadata, every session's latest snapshot and the journal entries written after
    /// it, in the order they were written.
    func load() throws(StoreError) -> StoredState

    /// Writes groups in one transaction, in order, atomically: all of them are stored, or (after a crash) none.
    /// Several groups written at once cost one transaction: that is how a writer that fell behind catches up.
    /// - Returns: the sessions this instance no longer owns (a fleet store: another instance took them over), whose
    ///   rows were not written; always empty for a store of one flowd.
    @discardableResult
    func commit(_ groups: [StoreGroup]) throws(StoreError) -> [String]

    /// What the store holds and how fast it writes.
    var statistics: StoreStatistics { get }
}

extension SessionStore {
    /// Writes one group atomically: all of it is stored, or (after a crash) none of it.
    /// - Returns: the sessions whose rows were not written, because this instance no longer owns them.
    @discardableResult
    public func commit(_ group: StoreGroup) throws(StoreError) -> [String] {
        try commit([group])
    }
}

/// One journal record: what changed a session, encoded by its owner (flowd keeps the entries of one session written
/// in a row, in one turn, together in one record: a line each), stored as one row.
public struct JournalRecord: Sendable, Hashable {
    /// The session it belongs to.
    public let session: String
    /// The record, as its owner encoded it.
    public var bytes: [UInt8]

    /// Creates a record.
    public init(session: String, bytes: [UInt8]) {
        self.session = session
        self.bytes = bytes
    }
}

/// A session's whole state at one point of the journal: it replaces every earlier journal entry of the session.
public struct SnapshotRecord: Sendable, Hashable {
    /// The session.
    public let session: String
    /// Its state, as its owner encoded it.
    public let bytes: [UInt8]

    /// Creates a record.
    public init(session: String, bytes: [UInt8]) {
        self.session = session
        self.bytes = bytes
    }
}

/// What one turn of flowd's loop writes, all or nothing.
public struct StoreGroup: Sendable, Hashable {
    /// Sessions that ended: their snapshot and entries go, first.
    public var removed: [String] = []
    /// New journal entries, in order.
    public var entries: [JournalRecord] = []
    /// New snapshots, written after the entries: each removes its session's journal entries.
    public var snapshots: [SnapshotRecord] = []
    /// Metadata to set (the daemon's clock, its epoch, the flows in use...).
    public var metadata: [String: String] = [:]

    /// An empty group.
    public init() {}

    /// Whether there is nothing to write.
    public var isEmpty: Bool {
        entries.isEmpty && snapshots.isEmpty && removed.isEmpty && metadata.isEmpty
    }
}

/// Everything a store holds.
public struct StoredState: Sendable, Hashable {
    /// The metadata.
    public var metadata: [String: String] = [:]
    /// Every session's latest snapshot.
    public var snapshots: [SnapshotRecord] = []
    /// The journal entries written after those snapshots, oldest first, all sessions interleaved as written.
    public var entries: [JournalRecord] = []

    /// Nothing stored.
    public init() {}
}

/// How much a store holds and how its writes went.
public struct StoreStatistics: Sendable, Hashable, Codable {
    /// Where it is (a file path, or a database's address without its password).
    public var location = ""
    /// What a write waits for: `os` (written to the operating system), `fsync` (on the disk), `off` (nothing).
    public var durability = ""
    /// Bytes on disk (the database and its write-ahead log).
    public var bytes: Int64 = 0
    /// Sessions with a snapshot.
    public var snapshots = 0
    /// Journal entries after the snapshots.
    public var journalEntries = 0
    /// Groups written since the store was opened.
    public var groups = 0
    /// Transactions written since the store was opened (several groups may share one).
    public var transactions = 0
    /// Snapshots written since the store was opened.
    public var snapshotsWritten = 0
    /// The last transaction's write, in microseconds.
    public var lastWriteMicroseconds = 0
    /// The mean transaction's write, in microseconds.
    public var meanWriteMicroseconds = 0
    /// The slowest transaction's write, in microseconds.
    public var maxWriteMicroseconds = 0

    /// Nothing written yet.
    public init() {}
}
