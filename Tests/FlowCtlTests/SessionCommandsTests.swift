import FlowBus
import FlowBusTesting
import Foundation
import Testing

/// `flowctl query`, `flowctl data` and `flowctl end` against a real flowd with a real stepper in session "kiosk".
/// Bad input tried: an unknown query kind, a session flowd does not have (for each command), an argument without
/// `=`, a value beyond maxSessionDataBytes.
@Suite struct SessionCommandsTests {
    @Test func queryDataAndEndDoWhatTheProtocolSays() async throws {
        let directory = uniqueDirectory()
        let endpoints = ["--control", "ipc://\(directory)/control", "--events", "ipc://\(directory)/events"]
        let daemon = try DaemonProcess(["--flows", demoFlows, "--max-session-data-bytes", "1024"] + endpoints)
        _ = try daemon.readyEndpoints()
        let options = ClientOptions(
            endpoints: Endpoints(control: "ipc://\(directory)/control", events: "ipc://\(directory)/events")
        )
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: options)
        let flowctl = try builtProduct("flowctl")

        let sessions = try run(flowctl, ["query", "sessions"] + endpoints)
        #expect(sessions.status == 0 && sessions.output.contains(#""session":"kiosk""#), "\(sessions)")
        let drops = try run(flowctl, ["query", "drops", "--session", "kiosk", "--argument", "limit=5"] + endpoints)
        #expect(drops.status == 0 && drops.output.hasPrefix("["), "\(drops)")
        let unknown = try run(flowctl, ["query", "nonsense"] + endpoints)
        #expect(unknown.status == 1 && unknown.errors.contains("unknown query 'nonsense'"), "\(unknown)")
        let noSession = try run(flowctl, ["query", "tree", "--session", "nosuch"] + endpoints)
        #expect(noSession.status == 1 && noSession.errors.contains("flowd has no session 'nosuch'"), "\(noSession)")
        let badArgument = try run(flowctl, ["query", "sessions", "--argument", "limit"] + endpoints)
        #expect(badArgument.status == 64 && badArgument.errors.contains("write key=value"), "\(badArgument)")

        let set = try run(flowctl, ["data", "kiosk", "permission=about"] + endpoints)
        #expect(set.status == 0 && set.output == "set permission in kiosk\n", "\(set)")
        let removed = try run(flowctl, ["data", "kiosk", "permission="] + endpoints)
        #expect(removed.status == 0 && removed.output == "removed permission from kiosk\n", "\(removed)")
        let stats = try run(flowctl, ["query", "stats"] + endpoints)
        #expect(stats.output.contains(#""SESSION_DATA":2"#), "\(stats.output)")
        let tooBig = try run(flowctl, ["data", "kiosk", "blob=\(String(repeating: "x", count: 2000))"] + endpoints)
        #expect(tooBig.status == 1 && tooBig.errors.contains("flowd refused it"), "\(tooBig)")
        let noKey = try run(flowctl, ["data", "kiosk", "=1"] + endpoints)
        #expect(noKey.status == 64 && noKey.errors.contains("KEY=VALUE"), "\(noKey)")
        let dataElsewhere = try run(flowctl, ["data", "nosuch", "k=1"] + endpoints)
        #expect(dataElsewhere.status == 1 && dataElsewhere.errors.contains("no session 'nosuch'"), "\(dataElsewhere)")

        // The stepper leaves first: a client whose session ended says HELLO again, which starts the session anew
        // (the protocol's rule), and would race the checks below.
        await app.close()
        let ended = try run(flowctl, ["end", "kiosk"] + endpoints)
        #expect(ended.status == 0 && ended.output == "ended session kiosk\n", "\(ended)")
        let after = try run(flowctl, ["query", "sessions"] + endpoints)
        #expect(!after.output.contains(#""session":"kiosk""#), "\(after)")
        let endAgain = try run(flowctl, ["end", "kiosk"] + endpoints)
        #expect(endAgain.status == 1 && endAgain.errors.contains("no session 'kiosk'"), "\(endAgain)")
        #expect(daemon.signal(SIGTERM) == 0)
    }
}
