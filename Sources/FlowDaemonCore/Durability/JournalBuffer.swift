import FlowCore
import FlowStore

/// What one turn of flowd's loop has to write before its answers leave: the journal entries of the inputs it
/// applied, the sessions due for a snapshot, the sessions that ended, and metadata.
struct JournalBuffer: Sendable {
    /// Whether anything is kept at all (`false` for an ephemeral flowd).
    let isEnabled: Bool
    /// Set while the journal is replayed: what is replayed is written already.
    var isReplaying = false
    /// Entries waiting, in the order their inputs were applied.
    var entries: [JournalRecord] = []
    /// Sessions that ended this turn.
    var removed: Set<SessionID> = []
    /// Sessions whose snapshot is due at the end of this turn.
    var snapshotDue: Set<SessionID> = []
    /// Each session's journal since its last snapshot.
    var tails: [SessionID: JournalTail] = [:]
    /// The size of each session's last snapshot (bytes).
    var snapshotSizes: [SessionID: Int] = [:]
    /// Metadata to set.
    var metadata: [String: String] = [:]
    /// When sessions changed since their last snapshot were last written whole (flowd's clock).
    var lastPeriodicSnapshot: Int64
    /// When flowd's clock was last written (flowd's clock).
    var lastClockWrite: Int64?
    /// When a snapshot was last written (wall clock), for the `store` query.
    var lastSnapshotWall: Int64?

    init(isEnabled: Bool, startedAt: Int64) {
        self.isEnabled = isEnabled
        self.lastPeriodicSnapshot = startedAt
    }

    /// Whether entries are to be written now.
    var isRecording: Bool { isEnabled && !isReplaying }

    /// How many times its last snapshot's size a session's journal grows before it is written whole again: a
    /// snapshot costs about this many times more to write, per byte, than journal entries (it goes through
    /// `Codable`), so keeping a session that grows costs a bounded share of the steps that make it grow.
    static let snapshotGrowth = 8

    /// Adds an entry; its session's snapshot is due once its journal has `snapshotEvery` entries and is
    /// ``snapshotGrowth`` times as large as its last snapshot.
    ///
    /// An entry that follows one of the same session joins its record, on a line of its own (an entry is compact JSON:
    /// it holds no line feed): under load, a turn's entries of a session are one row for the store to write, not one
    /// each. The order of all entries is kept.
    mutating func add(_ bytes: [UInt8], session: SessionID, snapshotEvery: Int) {
        assert(!bytes.contains(JournalRecord.entrySeparator), "a journal entry is compact JSON, on one line")
        if let last = entries.indices.last, entries[last].session == session.rawValue {
            entries[last].bytes.append(JournalRecord.entrySeparator)
            entries[last].bytes += bytes
        } else {
            entries.append(JournalRecord(session: session.rawValue, bytes: bytes))
        }
        let tail = noteEntry(of: session, bytes: bytes.count)
        if tail.entries >= snapshotEvery && tail.bytes >= Self.snapshotGrowth * snapshotSizes[session, default: 0] {
            snapshotDue.insert(session)
        }
    }

    /// Counts an entry in its session's tail; returns the tail.
    @discardableResult
    mutating func noteEntry(of session: SessionID, bytes: Int) -> JournalTail {
        // In place: one lookup.
        func count(_ tail: inout JournalTail) -> JournalTail {
            tail.entries += 1
            tail.bytes += bytes
            return tail
        }
        return count(&tails[session, default: JournalTail()])
    }

    /// A snapshot of the session was written: its journal starts again.
    mutating func noteSnapshot(of session: SessionID, bytes: Int) {
        tails[session] = nil
        snapshotSizes[session] = bytes
    }

    /// A session another instance of the fleet serves now: nothing more of it is written here, and what was
    /// stays (it is the other instance's now).
    mutating func forget(_ session: SessionID) {
        let name = session.rawValue
        entries.removeAll { $0.session == name }
        snapshotDue.remove(session)
        tails[session] = nil
        snapshotSizes[session] = nil
        removed.remove(session)
    }

    /// A session ended: nothing of it is to be written, and what was is to go.
    mutating func remove(_ session: SessionID) {
        forget(session)
        removed.insert(session)
    }
}

extension JournalRecord {
    /// What separates the entries of a record: a line feed.
    static let entrySeparator = UInt8(ascii: "\n")

    /// The entries of the record's bytes, in order.
    var entryBytes: [ArraySlice<UInt8>] {
        bytes.split(separator: Self.entrySeparator, omittingEmptySubsequences: true)
    }
}

extension StoreGroup {
    /// Whether the group holds at most `limit` journal entries (a record holds one per line): the lines are counted
    /// no further than the limit, so a large group costs its first few entries' bytes, not all of them.
    package func holdsEntries(atMost limit: Int) -> Bool {
        var count = 0
        for record in entries {
            count += 1
            guard count <= limit else { return false }
            for byte in record.bytes where byte == JournalRecord.entrySeparator {
                count += 1
                guard count <= limit else { return false }
            }
        }
        return true
    }
}

/// A session's journal since its last snapshot.
struct JournalTail: Sendable, Hashable {
    var entries = 0
    var bytes = 0
}
