import FlowBus
import FlowBusTesting
import Foundation
import Testing

/// `flowctl bench` against a real flowd: real stepper clients, figures printed, nothing left behind.
@Suite struct BenchTests {
    @Test func benchDrivesFlowdAndPrintsItsFigures() throws {
        let bus = try Bus()
        let json = try bus.flowctl(["bench", "--steppers", "2", "--steps", "100", "--session", "load", "--json"])
        #expect(json.status == 0, "\(json.errors)")
        let report = try #require(try JSONDecoder().decode(JSONValue.self, from: Data(json.output.utf8)).objectValue)
        #expect(report["steps"]?.intValue == 200)
        #expect(report["steppers"]?.intValue == 2)
        #expect(report["failed"]?.intValue == 0)
        // The demo's root flow opens something on each step it handles: the step left the session as it was.
        #expect(report["step"]?.stringValue == "introIsRequired")
        #expect(report["dropped"]?.objectValue?["unhandled"]?.intValue == 200)
        #expect((report["stepsPerSecond"]?.doubleValue ?? 0) > 0)
        let latency = try #require(report["latencyMicroseconds"]?.objectValue)
        #expect(
            (latency["p50"]?.intValue ?? 0) > 0 && (latency["p99"]?.intValue ?? 0) >= (latency["p50"]?.intValue ?? 0)
        )
        // Its sessions are ended.
        #expect(!(try bus.flowctl(["list"]).output.contains("load-")))
        let text = try bus.flowctl(["bench", "--steppers", "1", "--steps", "50", "--step", "moviesAreRequired"])
        #expect(text.status == 0)
        #expect(text.output.hasPrefix("50 steps of moviesAreRequired as app from 1 stepper in "))
        #expect(text.output.contains("latency (emit to fate): p50 "))
        // Tried: no steppers, too many, no steps.
        for arguments in [["--steppers", "0"], ["--steppers", "1001"], ["--steps", "0"]] {
            #expect(try bus.flowctl(["bench"] + arguments).status == 64, "\(arguments)")
        }
        #expect(bus.daemon.signal(SIGTERM) == 0)
    }
}
