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
    /// Journal entries per session since its last snapshot.
    var entriesSinceSnapshot: [SessionID: Int] = [:]
    /// Metadata to set.
    var metadata: [String: String] = [:]
    /// When sessions changed since their last snapshot were last written whole (flowd's clock).
    var lastPeriodicSnapshot: Int64
    /// When a snapshot was last written (wall clock), for the `store` query.
    var lastSnapshotWall: Int64?

    init(isEnabled: Bool, startedAt: Int64) {
        self.isEnabled = isEnabled
        self.lastPeriodicSnapshot = startedAt
    }

    /// Whether entries are to be written now.
    var isRecording: Bool { isEnabled && !isReplaying }

    /// Adds an entry; returns whether its session now has enough entries to deserve a snapshot.
    mutating func add(_ bytes: [UInt8], session: SessionID, snapshotEvery: Int) {
        entries.append(JournalRecord(session: session.rawValue, bytes: bytes))
        let count = entriesSinceSnapshot[session, default: 0] + 1
        entriesSinceSnapshot[session] = count
        if count >= snapshotEvery {
            snapshotDue.insert(session)
        }
    }

    /// A session ended: nothing of it is to be written, and what was is to go.
    mutating func remove(_ session: SessionID) {
        let name = session.rawValue
        entries.removeAll { $0.session == name }
        snapshotDue.remove(session)
        entriesSinceSnapshot[session] = nil
        removed.insert(session)
    }
}
