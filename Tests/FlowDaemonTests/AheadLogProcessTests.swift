import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

@testable import FlowStore

/// The real flowd and its ahead log: with the durability `os` an answer waits for its group to be in the operating
/// system's hands, not for the store's transaction — and what was answered is there after `kill -9` all the same.
@Suite struct AheadLogProcessTests {
    /// Another program holds the state file's write lock, so that none of flowd's transactions can happen: its
    /// answers still come, from the ahead log. flowd is killed; the next flowd (with the durability `fsync`, which
    /// writes no ahead log of its own) writes the groups the log holds to the store, and the stepper's step is there.
    @Test func anAnsweredStepWhoseTransactionNeverCameIsThereAfterKill9() throws {
        let setup = try StateProcessTests.Setup()
        defer { setup.remove() }
        let flows = try setup.flows(StateProcessTests.twoFlows)
        let first = try DaemonProcess(setup.arguments(flows: flows))
        _ = try first.readyEndpoints()
        let blocker = try SQLiteDatabase(path: setup.state + "/flowd.db")
        try blocker.execute("BEGIN IMMEDIATE")
        let app = try setup.peer("kiosk/app")
        _ = try app.hello(.stepper, name: "app")
        #expect(try app.emit(Step("open"), sequence: 1).accepted)
        #expect(first.signal(SIGKILL) != nil)
        try blocker.execute("ROLLBACK")
        #expect(try blocker.integer("SELECT count(*) FROM journal") == 0)
        blocker.close()
        let second = try DaemonProcess(setup.arguments(flows: flows) + ["--durability", "fsync"])
        _ = try second.readyEndpoints()
        #expect(try second.line(containing: "from the ahead log").contains("of the last run"))
        #expect(try second.line(containing: "restored").contains("restored 1 session"))
        let again = try setup.peer("kiosk/app")
        #expect(try again.hello(.stepper, name: "app").lastSequence == 1)
        // Written to the store now: a third flowd finds the step there, and nothing in the log to write again.
        #expect(second.signal(SIGKILL) != nil)
        let third = try DaemonProcess(setup.arguments(flows: flows))
        _ = try third.readyEndpoints()
        #expect(try third.line(containing: "restored").contains("restored 1 session"))
        #expect(!third.standardError.contains("from the ahead log"))
    }

    /// Ahead-log files that are there but cannot be read (here one is a directory) may hold acknowledged steps: flowd
    /// does not start over them (exit 74, naming the directory), and leaves them as they are.
    @Test func anAheadLogThatCannotBeReadStopsFlowd() throws {
        let setup = try StateProcessTests.Setup()
        defer { setup.remove() }
        let flows = try setup.flows(StateProcessTests.twoFlows)
        try FileManager.default.createDirectory(
            atPath: setup.state + "/flowd.ahead-0",
            withIntermediateDirectories: true
        )
        let daemon = try DaemonProcess(setup.arguments(flows: flows))
        #expect(daemon.exitStatus() == 74)
        #expect(daemon.standardError.contains("cannot read the ahead log in \(setup.state)"))
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: setup.state + "/flowd.ahead-0", isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
    }
}
