@testable import FlowStore

/// A journal entry of a session whose bytes are `text`.
func entry(_ session: String, _ text: String) -> JournalRecord {
    JournalRecord(session: session, bytes: Array(text.utf8))
}

/// A group of what is given.
func group(
    entries: [JournalRecord] = [],
    snapshots: [SnapshotRecord] = [],
    removed: [String] = [],
    metadata: [String: String] = [:]
) -> StoreGroup {
    var group = StoreGroup()
    group.entries = entries
    group.snapshots = snapshots
    group.removed = removed
    group.metadata = metadata
    return group
}
