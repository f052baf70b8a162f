import FlowBusTesting
import FlowCore
import FlowStore
import FlowWire
import Foundation
import Logging
import Testing

@testable import FlowDaemon
@testable import FlowDaemonCore

/// The journal writer on its own thread, over a real SQLite file, and the ordered delivery of each turn's messages
/// once the turn is written.
@Suite struct JournalWriterTests {
    let scratch = ScratchDirectory("writer")

    /// A group with one journal entry.
    static func group(_ session: String, _ byte: UInt8) -> StoreGroup {
        var group = StoreGroup()
        group.entries = [JournalRecord(session: session, bytes: [byte])]
        return group
    }

    static func message(_ text: String) -> Outgoing {
        .toPeer("peer", [Array(text.utf8)])
    }

    /// A writer over a new file, and its thread (not started). `atOnceUpTo`: `nil` hands every group to the thread.
    /// `aheadLog`: the groups go there first.
    func writer(atOnceUpTo: Int? = nil, aheadLog: AheadLog? = nil) throws -> (JournalWriter, Thread) {
        let writer = try JournalWriter(writtenAtOnceUpTo: atOnceUpTo, logger: Logger(label: "test"))
        writer.attach(try SQLiteStore(path: scratch.path + "/flowd.db", durability: .os), aheadLog: aheadLog)
        return (writer, Thread { writer.run() })
    }

    /// With an ahead log, a turn's answers leave as soon as its group is in the log (the writer's thread is not even
    /// running); the writer then writes the groups together in one transaction, with the marker that says how far
    /// the store got, and the log starts again.
    @Test func withAnAheadLogAnswersLeaveOnceTheGroupIsLoggedAndTheGroupsFollowInOneTransaction() throws {
        let log = try AheadLog(directory: scratch.path)
        let (writer, thread) = try writer(atOnceUpTo: 16, aheadLog: log)
        var delivery = OrderedDelivery(writer: writer, waitsForWrites: true)
        #expect(
            delivery.take(TurnEffects(persist: Self.group("kiosk", 1), messages: [Self.message("ack 1")])).count == 1
        )
        #expect(delivery.take(TurnEffects(persist: StoreGroup(), messages: [Self.message("reply 2")])).count == 1)
        #expect(
            delivery.take(TurnEffects(persist: Self.group("kiosk", 3), messages: [Self.message("ack 3")])).count == 1
        )
        #expect(!delivery.isHolding)
        // Not written at once on this thread, small as they are: the log holds them.
        #expect(writer.progress.written == 0)
        #expect(log.bytesHeld > 0)
        thread.start()
        try waitFor(2, writer)
        #expect(writer.progress.statistics?.transactions == 1)
        // The next group finds both groups stored: the log starts again, with it alone.
        let before = log.bytesHeld
        _ = delivery.take(TurnEffects(persist: Self.group("kiosk", 4), messages: [Self.message("ack 4")]))
        #expect(log.bytesHeld < before)
        try waitFor(3, writer)
        writer.close()
        #expect(waitUntil { thread.isFinished })
        let stored = try SQLiteStore(path: scratch.path + "/flowd.db", durability: .os).load()
        #expect(stored.entries.map(\.bytes) == [[1], [3], [4]])
        #expect(stored.metadata[AheadLog.metadataKey] == log.marker(through: 3))
    }

    /// While the store does not answer, the ahead log takes nothing: answers wait for their transactions, as the
    /// outage rules say (no step acknowledged through an outage), and leave once it is over and they are written.
    @Test func duringAnOutageAnswersWaitForTheStoreEvenWithAnAheadLog() throws {
        let log = try AheadLog(directory: scratch.path)
        let (writer, thread) = try writer(aheadLog: log)
        var delivery = OrderedDelivery(writer: writer, waitsForWrites: true)
        writer.availability.failed("the disk is full")
        #expect(delivery.take(TurnEffects(persist: Self.group("kiosk", 1), messages: [Self.message("ack 1")])).isEmpty)
        #expect(log.bytesHeld == 0)
        writer.availability.answered()
        #expect(try startAndRelease(&delivery, through: 1, writer, thread) == [Self.message("ack 1")])
        stop(writer, thread)
    }

    /// A group the ahead log has no room for waits for its transaction, and so do the answers of every turn after it,
    /// logged or not: they leave in the order of the turns.
    @Test func aGroupTheAheadLogHasNoRoomForHoldsItsTurnAndThoseAfterIt() throws {
        let log = try AheadLog(directory: scratch.path, capacity: 256)
        let (writer, thread) = try writer(aheadLog: log)
        var delivery = OrderedDelivery(writer: writer, waitsForWrites: true)
        var large = StoreGroup()
        large.entries = [JournalRecord(session: "kiosk", bytes: Array(repeating: 1, count: 300))]
        #expect(delivery.take(TurnEffects(persist: large, messages: [Self.message("ack 1")])).isEmpty)
        #expect(delivery.take(TurnEffects(persist: Self.group("kiosk", 2), messages: [Self.message("ack 2")])).isEmpty)
        #expect(delivery.take(TurnEffects(persist: StoreGroup(), messages: [Self.message("reply 3")])).isEmpty)
        #expect(try delivery.released().isEmpty)
        thread.start()
        try waitFor(2, writer)
        #expect(try delivery.released() == [Self.message("ack 1"), Self.message("ack 2"), Self.message("reply 3")])
        writer.close()
        #expect(waitUntil { thread.isFinished })
    }

    /// Starts the writer's thread, and returns what `delivery` releases once the writer has written up to `ticket`.
    func startAndRelease(
        _ delivery: inout OrderedDelivery,
        through ticket: UInt64,
        _ writer: JournalWriter,
        _ thread: Thread
    ) throws -> [Outgoing] {
        thread.start()
        try waitFor(ticket, writer)
        return try delivery.released()
    }

    /// Closes the writer and waits for its thread to end.
    func stop(_ writer: JournalWriter, _ thread: Thread) {
        writer.close()
        #expect(waitUntil { thread.isFinished })
    }

    /// Waits for the writer to have written up to `ticket`.
    func waitFor(_ ticket: UInt64, _ writer: JournalWriter) throws {
        guard waitUntil({ writer.progress.written >= ticket }) else {
            throw TestFailure("ticket \(ticket) not written; the writer is at \(writer.progress.written)")
        }
    }

    @Test func groupsWaitingForTheWriterShareOneTransactionInTheirOrder() throws {
        let (writer, thread) = try writer()
        let tickets = (1...5).map { writer.submit(Self.group("kiosk", UInt8($0))) }
        #expect(tickets == [1, 2, 3, 4, 5])
        #expect(writer.progress.waiting == 5)
        thread.start()
        try waitFor(5, writer)
        let statistics = try #require(writer.progress.statistics)
        #expect(statistics.groups == 5)
        #expect(statistics.transactions == 1)
        #expect(writer.progress.waiting == 0)
        writer.close()
        #expect(waitUntil { thread.isFinished })
        // The writer closed the store: another connection reads what it wrote, in order.
        let stored = try SQLiteStore(path: scratch.path + "/flowd.db", durability: .os).load()
        #expect(stored.entries.map(\.bytes) == [[1], [2], [3], [4], [5]])
    }

    @Test func aSmallGroupFindingTheWriterIdleIsWrittenAtOnceALargeOneByTheWritersThread() throws {
        let (writer, thread) = try writer(atOnceUpTo: 2)
        // The writer's thread is not running: only a write on the submitting thread can happen.
        #expect(writer.submit(Self.group("kiosk", 1)) == 1)
        #expect(writer.progress.written == 1)
        var large = StoreGroup()
        large.entries = (2...4).map { JournalRecord(session: "kiosk", bytes: [UInt8($0)]) }
        #expect(writer.submit(large) == 2)
        #expect(writer.progress.written == 1)
        // Small, but behind a waiting group: it waits too, in order.
        #expect(writer.submit(Self.group("kiosk", 5)) == 3)
        #expect(writer.progress.waiting == 2)
        thread.start()
        try waitFor(3, writer)
        #expect(writer.progress.statistics?.transactions == 2)
        writer.close()
        #expect(waitUntil { thread.isFinished })
        let stored = try SQLiteStore(path: scratch.path + "/flowd.db", durability: .os).load()
        #expect(stored.entries.map(\.bytes) == [[1], [2], [3], [4], [5]])
    }

    /// Entries are counted, not records: a session's entries of a turn share a record, and a turn of many steps is
    /// still a large group.
    @Test func aGroupIsLargeByItsEntriesNotItsRecords() throws {
        let (writer, thread) = try writer(atOnceUpTo: 2)
        var large = StoreGroup()
        large.entries = [JournalRecord(session: "kiosk", bytes: Array("{}\n{}\n{}".utf8))]
        #expect(writer.submit(large) == 1)
        #expect(writer.progress.written == 0)
        thread.start()
        try waitFor(1, writer)
        writer.close()
        #expect(waitUntil { thread.isFinished })
    }

    @Test func closingWritesWhatWasHandedOverAndRefusesWhatComesAfter() throws {
        let (writer, thread) = try writer()
        _ = writer.submit(Self.group("kiosk", 1))
        writer.close()
        thread.start()
        #expect(waitUntil { thread.isFinished })
        #expect(writer.progress.written == 1)
        let late = writer.submit(Self.group("kiosk", 2))
        #expect(late == 2)
        #expect(writer.progress.failure?.code == .unavailable)
        let stored = try SQLiteStore(path: scratch.path + "/flowd.db", durability: .os).load()
        #expect(stored.entries.map(\.bytes) == [[1]])
    }

    @Test func aTurnsMessagesWaitForItsWriteAndThoseOfEveryTurnBefore() throws {
        let (writer, thread) = try writer()
        var delivery = OrderedDelivery(writer: writer, waitsForWrites: true)
        // Turn 1 changed something; turn 2 changed nothing but answers; both wait for turn 1's write.
        #expect(delivery.take(TurnEffects(persist: Self.group("kiosk", 1), messages: [Self.message("ack 1")])).isEmpty)
        #expect(delivery.take(TurnEffects(persist: StoreGroup(), messages: [Self.message("reply 2")])).isEmpty)
        #expect(delivery.isHolding)
        #expect(try delivery.released().isEmpty)
        thread.start()
        try waitFor(1, writer)
        #expect(try delivery.released() == [Self.message("ack 1"), Self.message("reply 2")])
        #expect(!delivery.isHolding)
        // Nothing waits and nothing to write: a turn's messages leave at once.
        #expect(delivery.take(TurnEffects(persist: StoreGroup(), messages: [Self.message("reply 3")])).count == 1)
        // A stop: the last group is written before its messages leave — at once on this thread when the writer's
        // thread is idle by now (then `take` gives them back), else by that thread (then `drain` waits for it).
        let released = delivery.take(TurnEffects(persist: Self.group("kiosk", 4), messages: [Self.message("ack 4")]))
        let drained = delivery.drain(giveUpAfter: .seconds(5)).messages
        #expect(released + drained == [Self.message("ack 4")])
        #expect(writer.progress.written == 2)
        writer.close()
        #expect(waitUntil { thread.isFinished })
    }

    @Test func messagesThatDescribeNoStateLeaveWhileAnswersWaitForTheirWrites() throws {
        let (writer, thread) = try writer()
        var delivery = OrderedDelivery(writer: writer, waitsForWrites: true)
        let heartbeat = Self.message("heartbeat")
        // The writer's thread is not running: the group waits, and so does its acknowledgement; the heartbeat not.
        let effects = TurnEffects(
            persist: Self.group("kiosk", 1),
            messages: [Self.message("ack 1")],
            immediate: [heartbeat]
        )
        #expect(delivery.take(effects) == [heartbeat])
        #expect(delivery.take(TurnEffects(persist: StoreGroup(), messages: [], immediate: [heartbeat])) == [heartbeat])
        #expect(try startAndRelease(&delivery, through: 1, writer, thread) == [Self.message("ack 1")])
        stop(writer, thread)
    }

    @Test func aStopGivesUpAStoreThatDoesNotAnswerAndSendsNothingItWouldHaveAcknowledged() throws {
        let (writer, _) = try writer()
        var delivery = OrderedDelivery(writer: writer, waitsForWrites: true)
        #expect(delivery.take(TurnEffects(persist: Self.group("kiosk", 1), messages: [Self.message("ack 1")])).isEmpty)
        // As the store says when a write fails for want of it (the writer's thread never runs here).
        writer.availability.failed("the database system is shutting down")
        let asked = ContinuousClock.now
        let (written, failure) = delivery.drain(giveUpAfter: .milliseconds(300))
        #expect(written.isEmpty)
        #expect((failure as? StoreError)?.message.contains("1 answers that waited for them are not sent") == true)
        #expect(ContinuousClock.now - asked < .seconds(2))
        #expect(writer.availability.isAbandoned)
        #expect(!writer.availability.shouldRetry)
    }

    @Test func withDurabilityOffOrNoStoreMessagesLeaveAtOnce() throws {
        let (writer, thread) = try writer()
        var off = OrderedDelivery(writer: writer, waitsForWrites: false)
        let effects = TurnEffects(persist: Self.group("kiosk", 1), messages: [Self.message("ack 1")])
        #expect(off.take(effects) == [Self.message("ack 1")])
        thread.start()
        #expect(off.drain(giveUpAfter: .seconds(5)).messages.isEmpty)
        #expect(writer.progress.written == 1)
        writer.close()
        #expect(waitUntil { thread.isFinished })
        var ephemeral = OrderedDelivery(writer: nil, waitsForWrites: true)
        #expect(ephemeral.take(effects) == [Self.message("ack 1")])
    }

    @Test func aWriterThatFailedReleasesNothingHeld() throws {
        let (writer, thread) = try writer()
        var delivery = OrderedDelivery(writer: writer, waitsForWrites: true)
        thread.start()
        writer.close()
        #expect(waitUntil { thread.isFinished })
        // Handed over after the writer stopped: never written, so its messages never leave.
        #expect(delivery.take(TurnEffects(persist: Self.group("kiosk", 1), messages: [Self.message("ack 1")])).isEmpty)
        #expect(throws: StoreError.self) { try delivery.released() }
        #expect(!delivery.isHolding)
    }
}
