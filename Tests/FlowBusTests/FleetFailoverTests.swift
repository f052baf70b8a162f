import FlowBus
import FlowBusTesting
import FlowCore
import Foundation
import Testing

/// The Swift client in a fleet of two real flowd on a real PostgreSQL server (the test's own): a registered client
/// whose instance is paused (SIGSTOP: its connections stay up, nothing answers) leaves it within about a second,
/// through ZeroMQ's connection heartbeats rather than flowd's heartbeat timeout (5 s here), and is served by the
/// other instance once the paused one's lease expires; a client that says HELLO while the database is down is told
/// `storeUnavailable` and says HELLO again until its connect timeout: it gives up saying why, or connects once the
/// database is back.
@Suite(.serialized, .enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.unavailableReason ?? "")))
struct FleetFailoverTests {
    private let server: PostgresServer

    init() throws {
        server = try PostgresServer()
    }

    /// An instance on loopback tcp, with flowd's default heartbeats (1 s, 5 s) and a lease of 3 s.
    private func instance(_ name: String, store: String, flows: String) throws -> (DaemonProcess, Endpoints) {
        for attempt in 1...3 {
            let endpoints = Endpoints(
                control: "tcp://127.0.0.1:\(freeLoopbackPort())",
                events: "tcp://127.0.0.1:\(freeLoopbackPort())"
            )
            let daemon = try DaemonProcess([
                "--flows", flows, "--store", store, "--instance", name, "--lease", "3s", "--control", endpoints.control,
                "--events", endpoints.events, "--log-level", "debug",
            ])
            do {
                _ = try daemon.readyEndpoints()
                return (daemon, endpoints)
            } catch  where attempt < 3 && daemon.standardError.contains("the address is in use") {
                continue
            }
        }
        throw TestFailure("instance \(name) did not start")
    }

    private func owner(of session: String, in database: String) throws -> String {
        try server.psql("SELECT owner FROM flowbus_sessions WHERE session = '\(session)'", database: database)
            .output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aClientLeavesAPausedInstanceWithinAboutASecond() async throws {
        let store = try server.createDatabase("leaving")
        let flows = try flowsFile(tickerFlows)
        let (a, atA) = try instance("a", store: store, flows: flows)
        let (b, atB) = try instance("b", store: store, flows: flows)
        let options = ClientOptions(endpoints: atA, alternateEndpoints: [atB], connectTimeout: .seconds(20))
        let ticker = try await StepperClient.connect(session: "pz", name: "ticker", options: options)
        #expect(try await ticker.emit("tick", ["n": 1]).isAccepted)
        #expect(try owner(of: "pz", in: "leaving") == "a")

        kill(a.process.processIdentifier, SIGSTOP)
        defer { kill(a.process.processIdentifier, SIGCONT) }
        let paused = ContinuousClock.now
        // b hears the client's HELLO (and sends it back to a while a's lease runs).
        _ = try b.line(containing: "redirected a HELLO", within: .seconds(10))
        let left = ContinuousClock.now - paused
        #expect(left < .milliseconds(2500), "the client left the paused instance after \(left)")

        // Once a's lease expired, b takes the session over and the client is served there.
        let fate = Task { try await ticker.emit("tick", ["n": 2]) }
        try await eventually("the step acknowledged by b", within: .seconds(20)) { ticker.waitingSteps == 0 }
        #expect(try await fate.value.isAccepted)
        #expect(try owner(of: "pz", in: "leaving") == "b")
        await ticker.close()
    }

    @Test func aClientThatComesWhileTheDatabaseIsDownWaitsForItWithinItsConnectTimeout() async throws {
        let store = try server.createDatabase("waiting")
        let (a, atA) = try instance("a", store: store, flows: try flowsFile(tickerFlows))
        server.stop()
        _ = try a.line(containing: "the store does not answer (", within: .seconds(10))
        var options = ClientOptions(endpoints: atA, connectTimeout: .seconds(2))
        do {
            _ = try await StepperClient.connect(session: "w", name: "ticker", options: options)
            Issue.record("registered while the database was down")
        } catch {
            #expect(error.code == .refused)
            #expect(error.daemonCode == "storeUnavailable")
            #expect(error.message.contains("could not register this client within"), "\(error)")
        }
        // With time enough, the database back meanwhile: it connects.
        options.connectTimeout = .seconds(20)
        let server = self.server
        let restarted = Task.detached {
            try await Task.sleep(for: .seconds(1))
            try server.start()
        }
        let ticker = try await StepperClient.connect(session: "w", name: "ticker", options: options)
        try await restarted.value
        #expect(try await ticker.emit("tick", ["n": 1]).isAccepted)
        await ticker.close()
        #expect(a.signal(SIGTERM) == 0)
    }
}
