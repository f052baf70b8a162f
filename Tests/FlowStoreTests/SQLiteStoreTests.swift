import FlowBusTesting
import Foundation
import Testing

@testable import FlowStore

/// The embedded store over real SQLite files: what is committed comes back, in order; a write cut short leaves the
/// groups before it; a file flowd must not use is refused, untouched.
@Suite struct SQLiteStoreTests {
    /// Where this test's files go (removed with it).
    private let scratch = ScratchDirectory("store")

    private func path() -> String {
        scratch.path + "/\(UUID().uuidString.prefix(8)).db"
    }

    @Test func committedGroupsComeBackInTheOrderTheyWereWritten() throws {
        let file = path()
        var store: SQLiteStore? = try SQLiteStore(path: file, durability: .os)
        try store?.commit(group(entries: [entry("a", "1"), entry("b", "2")], metadata: ["clock": "10"]))
        try store?.commit(group(entries: [entry("a", "3")], metadata: ["clock": "20", "epoch": "e"]))
        #expect(store?.statistics.journalEntries == 3)
        #expect(try store?.metadataValue("epoch") == "e")
        #expect(try store?.metadataValue("missing") == nil)
        #expect(store?.statistics.groups == 2)
        #expect((store?.statistics.bytes ?? 0) > 0)
        // Held alone while open: another store is refused.
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: file, durability: .os).load() }
        #expect(error?.code == .locked)
        store = nil
        let state = try SQLiteStore(path: file, durability: .os).load()
        #expect(state.entries == [entry("a", "1"), entry("b", "2"), entry("a", "3")])
        #expect(state.metadata == ["clock": "20", "epoch": "e"])
        #expect(state.snapshots.isEmpty)
    }

    @Test func theLogIsCopiedBackBesideTheWritesAndStartsAgainFromItsBeginning() throws {
        let file = path()
        var store: SQLiteStore? = try SQLiteStore(path: file, durability: .os)
        let padding = String(repeating: "x", count: 2000)
        func write(_ groups: Range<Int>) throws {
            for index in groups {
                try store?.commit(group(entries: (0..<20).map { entry("s\($0)", "\(index) \(padding)") }))
            }
        }
        func logSize() -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: file + "-wal"))?[.size] as? NSNumber)?.intValue ?? 0
        }
        // 1 200 pages of log (20 entries of 2 KB a group): past the threshold, the checkpointer is asked.
        try write(0..<120)
        #expect(waitUntil { (store?.checkpoints ?? 0) >= 1 })
        // The first checkpoint may have begun while groups were still written: a second one, with nothing written
        // meanwhile, copies the whole log back.
        store?.requestCheckpoint()
        #expect(waitUntil { (store?.checkpoints ?? 0) >= 2 })
        let size = logSize()
        #expect(size > 0)
        // The next groups go at the start of the log again: it does not grow (without the checkpoints it would
        // hold all 1 600 pages, past 6 MB).
        try write(120..<160)
        #expect(logSize() <= size)
        store = nil
        let state = try SQLiteStore(path: file, durability: .os).load()
        #expect(state.entries.count == 160 * 20)
        #expect(state.entries.last == entry("s19", "159 \(padding)"))
    }

    @Test func underWritesThatNeverPauseTheLogStaysBounded() throws {
        let file = path()
        var store: SQLiteStore? = try SQLiteStore(path: file, durability: .os)
        let padding = String(repeating: "x", count: 2000)
        // 8 000 pages of log written without a pause (20 entries of 2 KB a group).
        for index in 0..<400 {
            try store?.commit(group(entries: (0..<20).map { entry("s\($0)", "\(index) \(padding)") }))
        }
        let size = ((try? FileManager.default.attributesOfItem(atPath: file + "-wal"))?[.size] as? NSNumber)?.intValue
        // The bound, and the groups written while a checkpoint of it ran (a page is 4 KB and a 24-byte header).
        let bound = Int(SQLiteCheckpointer.pagesForcingACheckpoint + 200) * (4096 + 24)
        #expect((size ?? 0) > 0 && (size ?? 0) <= bound, "the log holds \(size ?? 0) bytes; at most \(bound)")
        #expect((store?.checkpoints ?? 0) >= 1)
        store = nil
        let state = try SQLiteStore(path: file, durability: .os).load()
        #expect(state.entries.count == 400 * 20)
    }

    @Test func aProgramReadingTheFileMeanwhileDoesNotHoldTheWrites() throws {
        let file = path()
        var store: SQLiteStore? = try SQLiteStore(path: file, durability: .os)
        try store?.commit(group(entries: [entry("a", "0")]))
        // Another program's connection (sqlite3), in the middle of a read: the log cannot start again meanwhile.
        let reader = try SQLiteDatabase(path: file)
        let reading = try reader.prepare("SELECT entry FROM journal")
        #expect(try reading.step())
        let padding = String(repeating: "x", count: 2000)
        let started = ContinuousClock.now
        // 6 000 pages of log, three times its bound.
        for index in 0..<300 {
            try store?.commit(group(entries: (0..<20).map { entry("s\($0)", "\(index) \(padding)") }))
        }
        // Not a speed figure: a checkpoint that waited for the reader held each commit past the bound a second,
        // some 200 seconds in all.
        #expect(ContinuousClock.now - started < .seconds(30))
        reading.reset()
        store = nil
        let state = try SQLiteStore(path: file, durability: .os).load()
        #expect(state.entries.count == 1 + 300 * 20)
    }

    @Test func groupsWrittenTogetherAreAppliedOneAfterTheOtherInOneTransaction() throws {
        let file = path()
        var store: SQLiteStore? = try SQLiteStore(path: file, durability: .os)
        // A session written, ended, then started again: in one transaction, each group applies in turn.
        try store?.commit([
            group(entries: [entry("a", "1"), entry("b", "2")]),
            group(removed: ["a"]),
            group(entries: [entry("a", "3")], snapshots: [SnapshotRecord(session: "b", bytes: Array("B".utf8))]),
        ])
        #expect(store?.statistics.groups == 3)
        #expect(store?.statistics.transactions == 1)
        #expect(store?.statistics.journalEntries == 1)
        // Nothing to write: no transaction.
        try store?.commit([StoreGroup(), StoreGroup()])
        #expect(store?.statistics.transactions == 1)
        store = nil
        let state = try SQLiteStore(path: file, durability: .os).load()
        #expect(state.entries == [entry("a", "3")])
        #expect(state.snapshots == [SnapshotRecord(session: "b", bytes: Array("B".utf8))])
    }

    @Test func aSnapshotReplacesItsSessionsEntriesAndAnEndedSessionLeavesNothing() throws {
        let store = try SQLiteStore(path: path(), durability: .fsync)
        try store.commit(group(entries: [entry("a", "1"), entry("b", "2"), entry("c", "3")]))
        try store.commit(
            group(entries: [entry("a", "4")], snapshots: [SnapshotRecord(session: "a", bytes: Array("A".utf8))])
        )
        try store.commit(group(entries: [entry("a", "5")], removed: ["c"]))
        // Removed first, then written: a session ended and started again in one group keeps its new entries.
        try store.commit(group(entries: [entry("b", "6")], removed: ["b"]))
        let state = try store.load()
        #expect(state.snapshots == [SnapshotRecord(session: "a", bytes: Array("A".utf8))])
        #expect(state.entries == [entry("a", "5"), entry("b", "6")])
        #expect(store.statistics.journalEntries == 2)
        #expect(store.statistics.snapshots == 1)
        #expect(store.statistics.snapshotsWritten == 1)
    }

    /// flowd killed while SQLite appends a group to its write-ahead log: the log ends in the middle of the group's
    /// last frame. Opened again, the store holds every group before it, and nothing of it.
    @Test func aTornWriteLeavesTheGroupsBeforeIt() throws {
        let file = path()
        let store = try SQLiteStore(path: file, durability: .os)
        try store.commit(group(entries: [entry("a", "1")], metadata: ["clock": "1"]))
        try store.commit(
            group(entries: [entry("a", String(repeating: "x", count: 10_000))], metadata: ["clock": "2"])
        )
        // A copy of the files as a crash leaves them, the log cut 100 bytes before its end.
        let copy = path()
        try FileManager.default.copyItem(atPath: file, toPath: copy)
        var log = try Data(contentsOf: URL(fileURLWithPath: file + "-wal"))
        #expect(log.count > 4096)
        log.removeLast(100)
        try log.write(to: URL(fileURLWithPath: copy + "-wal"))
        let state = try SQLiteStore(path: copy, durability: .os).load()
        #expect(state.entries == [entry("a", "1")])
        #expect(state.metadata["clock"] == "1")
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAlone() throws {
        let file = path()
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: file))
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: file, durability: .os) }
        #expect(error?.code == .corrupted)
        #expect(error?.message.contains("is damaged or not a FlowBus state file") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == garbage)
    }

    /// A database whose pages were damaged on disk (cut in half here): refused when read, never taken as empty.
    @Test func aDamagedDatabaseIsRefusedWhenRead() throws {
        let file = path()
        do {
            let store = try SQLiteStore(path: file, durability: .os)
            let large = (0..<200).map { entry("s\($0)", String(repeating: "y", count: 500)) }
            try store.commit(group(entries: large))
        }
        // Closed: the log went into the file. Half of its pages go.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(bytes.count > 8192)
        bytes.removeLast(bytes.count / 2)
        try bytes.write(to: URL(fileURLWithPath: file))
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: file, durability: .os).load() }
        #expect(error?.code == .corrupted)
    }

    @Test func aDatabaseOfAnotherProgramIsRefused() throws {
        let file = path()
        try SQLiteDatabase(path: file).execute("CREATE TABLE notes(text TEXT); INSERT INTO notes VALUES ('mine')")
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: file, durability: .os) }
        #expect(error?.code == .foreign)
        #expect(error?.message.contains("another program") == true)
        // Untouched: the other program's table is still all there is.
        #expect(try SQLiteDatabase(path: file).integer("SELECT count(*) FROM sqlite_master") == 1)
    }

    @Test func aFileOfANewerFormatIsRefused() throws {
        let file = path()
        _ = try SQLiteStore(path: file, durability: .os)
        try SQLiteDatabase(path: file).execute("PRAGMA user_version = \(SQLiteStore.formatVersion + 1)")
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: file, durability: .os) }
        #expect(error?.code == .newerFormat)
        #expect(error?.message.contains("newer FlowBus (state format 2; this flowd reads up to 1)") == true)
    }

    /// A state file cut to nothing is refused, not taken for a new one; a new one is never left half made.
    @Test func anEmptyFileIsRefusedAndANewFileIsMadeWhole() throws {
        let file = path()
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: file, durability: .os) }
        #expect(error?.code == .corrupted)
        #expect(error?.message.contains("is empty") == true)
        let fresh = path()
        _ = try SQLiteStore(path: fresh, durability: .os)
        #expect(!FileManager.default.fileExists(atPath: fresh + ".new"))
        #expect(((try FileManager.default.attributesOfItem(atPath: fresh))[.size] as? NSNumber)?.intValue ?? 0 > 0)
    }

    @Test func aFlowBusFileMissingATableIsDamaged() throws {
        let file = path()
        _ = try SQLiteStore(path: file, durability: .os)
        try SQLiteDatabase(path: file).execute("DROP TABLE meta")
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: file, durability: .os) }
        #expect(error?.code == .corrupted)
        #expect(error?.message.contains("tables of FlowBus's state are missing") == true)
    }

    @Test func aDirectoryThatCannotHoldTheFileIsUnavailable() throws {
        let error = #expect(throws: StoreError.self) {
            try SQLiteStore(path: "/proc/no-such-dir/flowd.db", durability: .os)
        }
        #expect(error?.code == .unavailable)
    }
}
