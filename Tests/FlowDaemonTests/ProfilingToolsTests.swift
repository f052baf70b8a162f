import FlowBusTesting
import FlowCore
import Foundation
import Testing
import ZeroMQ

/// The tools that measure what an idle session holds (README, Benchmarks): `flowbench engine-sessions N` and
/// `coordinator-sessions FLOWS N` run in process for valgrind's dhat, and `session-creator CONTROL N` creates sessions
/// in a running flowd. Each runs to its end; bad arguments are usage errors (no count, a count that is not a
/// number, a flows file that does not exist).
@Suite(.serialized) struct ProfilingToolsTests {
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let tool = try ChildProcess("flowbench", arguments)
        let output = try tool.waitForExit(within: .seconds(60))
        return (tool.process.terminationStatus, output)
    }

    @Test func idleSessionsAreMadeInProcessAndInARunningFlowd() throws {
        let scratch = ScratchDirectory("pt")
        let directory = scratch.path
        let flows = directory + "/flows.yaml"
        #expect(try run(["flows", flows]).status == 0)

        #expect(try run(["engine-sessions", "300"]).status == 0)
        #expect(try run(["coordinator-sessions", flows, "300"]).status == 0)
        for bad in [["coordinator-sessions", flows], ["coordinator-sessions", flows, "many"]] {
            let (status, output) = try run(bad)
            #expect(status != 0 && output.contains("usage: flowbench coordinator-sessions FLOWS COUNT"), "\(bad)")
        }
        #expect(try run(["coordinator-sessions", directory + "/none.yaml", "3"]).status != 0)

        let daemon = try DaemonProcess(
            [
                "--flows", flows, "--control", "ipc://\(directory)/control", "--events", "ipc://\(directory)/events",
                "--ephemeral", "--sessions-per-peer-per-minute", "100000",
            ]
        )
        let endpoints = try daemon.readyEndpoints()
        #expect(try run(["session-creator", endpoints.control[0], "250"]).status == 0)
        let (status, output) = try run(["session-creator", endpoints.control[0]])
        #expect(status != 0 && output.contains("usage: flowbench session-creator CONTROL-ENDPOINT COUNT"))

        let context = try Context()
        let inspector = try TestPeer(
            "watcher",
            session: "session-1",
            context: context,
            control: endpoints.control[0],
            events: endpoints.events[0]
        )
        try inspector.hello(.inspector, name: "watcher")
        #expect(try inspector.stats()["sessionsCreated"]?.intValue == 250)
        #expect(daemon.signal(SIGTERM) == 0)
    }
}
