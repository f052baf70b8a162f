import FlowBusTesting
import Foundation
import Testing

@testable import FlowStore

/// The ahead log over real files mapped into memory: groups come back as written, those the store holds do not, and
/// nothing a reset, a cut-short record or another run left behind is ever taken for a group.
@Suite struct AheadLogTests {
    private let scratch = ScratchDirectory("ahead")

    /// A group of every part, with text that is not plain ASCII and a record of two entries.
    private static let everyPart: StoreGroup = {
        var group = StoreGroup()
        group.removed = ["gone", "également"]
        group.entries = [
            JournalRecord(session: "kiosk", bytes: Array("{\"a\":1}\n{\"b\":2}".utf8)),
            JournalRecord(session: "lobby", bytes: [0, 255, 10]),
        ]
        group.snapshots = [SnapshotRecord(session: "kiosk", bytes: Array("{\"whole\":true}".utf8))]
        group.metadata = ["clock": "42", "épοque": "e"]
        return group
    }()

    private func group(_ byte: UInt8) -> StoreGroup {
        var group = StoreGroup()
        group.entries = [JournalRecord(session: "kiosk", bytes: [byte])]
        return group
    }

    /// The standard check value of CRC-32 ("123456789" → CBF43926), and the same over every length from 0 to 40
    /// bytes (the eight-at-a-time path and the byte-at-a-time rest) as a byte-at-a-time reference gives it.
    @Test func theChecksumIsCRC32() {
        #expect(Array("123456789".utf8).withUnsafeBytes { CRC32.checksum($0) } == 0xCBF4_3926)
        func reference(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 {
                    crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1
                }
            }
            return ~crc
        }
        let bytes = (0..<40).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for length in 0...bytes.count {
            let prefix = Array(bytes.prefix(length))
            #expect(prefix.withUnsafeBytes { CRC32.checksum($0) } == reference(prefix), "\(length) bytes")
        }
    }

    @Test func aGroupOfEveryPartComesBackAsItWasWritten() throws {
        let bytes = Self.everyPart.aheadLogBytes()
        #expect(bytes.withUnsafeBytes { StoreGroup(aheadLogBytes: $0) } == Self.everyPart)
        // Cut anywhere, or with a byte too many, the bytes are not a group.
        for length in [0, 3, bytes.count / 2, bytes.count - 1] {
            #expect(Array(bytes.prefix(length)).withUnsafeBytes { StoreGroup(aheadLogBytes: $0) } == nil)
        }
        #expect((bytes + [0]).withUnsafeBytes { StoreGroup(aheadLogBytes: $0) } == nil)
    }

    @Test func theGroupsAfterTheStoresMarkerArePendingInTheOrderWritten() throws {
        let log = try AheadLog(directory: scratch.path)
        #expect(log.append(Self.everyPart, ticket: 1))
        #expect(log.append(group(2), ticket: 2))
        #expect(log.append(group(3), ticket: 3))
        // Reopened, as after flowd was killed: the store's marker says it holds ticket 1 of that run.
        let reopened = try AheadLog(directory: scratch.path)
        #expect(reopened.pendingGroups(after: log.marker(through: 1)) == [group(2), group(3)])
        #expect(reopened.pendingGroups(after: log.marker(through: 0)) == [Self.everyPart, group(2), group(3)])
        #expect(reopened.pendingGroups(after: log.marker(through: 3)).isEmpty)
        // Another run's marker, none, or one that does not read: the store holds nothing of these groups' run, or
        // they are not this store's; nothing is pending.
        #expect(reopened.pendingGroups(after: reopened.marker(through: 0)).isEmpty)
        #expect(reopened.pendingGroups(after: nil).isEmpty)
        #expect(reopened.pendingGroups(after: "garbage").isEmpty)
        reopened.clear()
        #expect(try AheadLog(directory: scratch.path).pendingGroups(after: log.marker(through: 0)).isEmpty)
    }

    /// A ticket missing (a group that waited for its transaction, not logged, and not written): the groups after it
    /// were never answered, and are not written — the journal has no hole. The marker given with the groups names the
    /// last one.
    @Test func theGroupsPendingStopAtAMissingTicketAndComeWithTheirMarker() throws {
        let log = try AheadLog(directory: scratch.path)
        #expect(log.append(group(2), ticket: 2))
        #expect(log.append(group(3), ticket: 3))
        #expect(log.append(group(5), ticket: 5))
        let reopened = try AheadLog(directory: scratch.path)
        let pending = try #require(reopened.pending(after: log.marker(through: 1)))
        #expect(pending.groups == [group(2), group(3)])
        #expect(pending.marker == log.marker(through: 3))
        // The store holds ticket 3: nothing after it follows on.
        #expect(reopened.pending(after: log.marker(through: 3)) == nil)
    }

    /// flowd killed while it copied a record: the record's bytes are there in part (here its last byte is wrong).
    /// The records before it come back; it does not, nor anything after it.
    @Test func aRecordCutShortEndsTheLog() throws {
        let log = try AheadLog(directory: scratch.path, capacity: 4096)
        #expect(log.append(group(1), ticket: 1))
        #expect(log.append(group(2), ticket: 2))
        let firstRecord = 24 + group(1).aheadLogBytes().count
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: scratch.path + "/flowd.ahead-0"))
        try file.seek(toOffset: UInt64((firstRecord + 7) & ~7 + 24 + group(2).aheadLogBytes().count - 1))
        try file.write(contentsOf: [0xEE])
        try file.close()
        #expect(try AheadLog(directory: scratch.path).pendingGroups(after: log.marker(through: 0)) == [group(1)])
    }

    /// A file full of groups the store holds starts again from its beginning; a group neither file has room for is
    /// refused (it waits for its transaction); what a reset left behind never comes back.
    @Test func filesWhoseGroupsAreStoredAreWrittenAgainAndAFullLogRefuses() throws {
        let capacity = 4096
        let log = try AheadLog(directory: scratch.path, capacity: capacity)
        var large = StoreGroup()
        large.entries = [JournalRecord(session: "kiosk", bytes: Array(repeating: 7, count: 3000))]
        #expect(log.append(large, ticket: 1))
        #expect(log.append(large, ticket: 2))
        // Both files hold a group the store does not have yet.
        #expect(!log.append(large, ticket: 3))
        log.stored(through: 1)
        #expect(log.append(large, ticket: 4))
        // Bigger than a file: never.
        var huge = StoreGroup()
        huge.entries = [JournalRecord(session: "kiosk", bytes: Array(repeating: 7, count: capacity))]
        log.stored(through: 4)
        #expect(log.bytesHeld == 0)
        #expect(!log.append(huge, ticket: 5))
        #expect(log.append(group(6), ticket: 6))
        let reopened = try AheadLog(directory: scratch.path, capacity: capacity)
        // Group 5 waited for its transaction: once the store holds it, group 6 follows on.
        #expect(reopened.pendingGroups(after: log.marker(through: 5)) == [group(6)])
    }

    /// Records another run left in the file are never read as this run's, even where their tickets would follow on:
    /// here the earlier run's records come back after the clear (as a power loss could leave the file: the zeroed
    /// pages lost, the older ones kept), and this run's first group is written over the first of them.
    @Test func recordsAnotherRunLeftInTheFileAreNotTakenForThisRuns() throws {
        let earlier = try AheadLog(directory: scratch.path)
        for ticket in 1...5 {
            #expect(earlier.append(group(UInt8(ticket)), ticket: UInt64(ticket)))
        }
        let path = scratch.path + "/flowd.ahead-0"
        let left = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(4096)
        let run = try AheadLog(directory: scratch.path)
        run.clear()
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try file.write(contentsOf: left)
        try file.close()
        #expect(run.append(group(9), ticket: 1))
        let reopened = try AheadLog(directory: scratch.path)
        #expect(reopened.pendingGroups(after: run.marker(through: 0)) == [group(9)])
        #expect(reopened.pendingGroups(after: earlier.marker(through: 0)).isEmpty)
    }

    @Test func aDirectoryThatCannotHoldTheFilesIsUnavailable() throws {
        let error = #expect(throws: StoreError.self) { try AheadLog(directory: "/proc/no-such-dir") }
        #expect(error?.code == .unavailable)
    }
}

extension AheadLog {
    /// The groups ``pending(after:)`` gives, none when it gives nothing.
    fileprivate func pendingGroups(after marker: String?) -> [StoreGroup] {
        pending(after: marker)?.groups ?? []
    }
}
