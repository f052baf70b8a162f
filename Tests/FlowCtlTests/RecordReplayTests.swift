import FlowBus
import Foundation
import TestSupport
import Testing

/// `flowctl record` and `flowctl replay` as real processes against a real flowd.
@Suite struct RecordReplayTests {
    @Test func aRecordedJourneyReplaysToTheSameTreeOnlineAndOffline() async throws {
        let bus = try Bus()
        let file = uniqueDirectory() + "/journey.flowrec"
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        // The session comes with the journey, after the recorder starts: --wait.
        let recorder = try bus.startFlowctl(
            ["record", file, "--session", "kiosk", "--wait"],
            ready: "recording session kiosk"
        )
        let presenter = try await ScriptedJourney(bus: bus).run()
        // The journey's last input is the tap on the hidden table.
        waitUntil { (try? String(contentsOfFile: file, encoding: .utf8))?.contains("\"withId\":8") == true }
        recorder.terminate(with: SIGINT)
        #expect(recorder.process.terminationStatus == 0)
        #expect(recorder.output.contains("recorded 7 inputs to \(file)"))

        let recorded = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
        try #require(recorded.count == 8)
        #expect(recorded[0].contains("\"format\":\"flowbus-recording\""))
        #expect(recorded[1].contains("\"kind\":\"visibility\"") && recorded[1].contains("\"presenter\":\"main\""))
        #expect(recorded[2].contains("\"kind\":\"step\"") && recorded[2].contains("\"stepper\":\"app\""))
        #expect(recorded[7].contains("\"presentable\":5") && recorded[7].contains("\"presenter\":\"main\""))

        let original = try tree(try bus.flowctl(["tree", "kiosk", "--json"]).output)

        let online = try bus.flowctl(["replay", file, "--session", "copy", "--fast", "--json"])
        #expect(online.status == 0)
        #expect(online.errors.contains("replayed 7 inputs into flowd: 2 steps accepted, 1 dropped"))
        let replayed = try trees(online.output)
        #expect(replayed.count == 1)
        #expect(renamed(replayed.first, to: "kiosk") == original)

        // Recorded speed: the same tree again, in another session.
        let paced = try bus.flowctl(["replay", file, "--session", "paced", "--rate", "4", "--json"])
        #expect(paced.status == 0)
        #expect(renamed(try trees(paced.output).first, to: "kiosk") == original)

        let offline = try run(
            try builtProduct("flowctl"),
            ["replay", "--offline", file, "--flows", demoFlows, "--json"]
        )
        #expect(offline.status == 0)
        #expect(try trees(offline.output).first == original)

        let text = try run(try builtProduct("flowctl"), ["replay", "--offline", file, "--flows", demoFlows])
        #expect(text.output.hasPrefix("session kiosk (ready)\nflows\n  f1 AppFlow — root p1, stepper app\n"))
        #expect(text.output.contains("● p7 MovieDetail(movieId: 7) screen, stackItem"))

        // The recorded session exists: replaying into it again is refused.
        let again = try bus.flowctl(["replay", file, "--fast"])
        #expect(again.status == 1)
        #expect(again.errors.contains("flowd already has session 'kiosk'"))
        await presenter.close()
        #expect(bus.daemon.signal(SIGTERM) == 0)
    }

    // Tried: a missing file, an empty file, a file that is not a recording, a recording of another version, an
    // action without its step, an action that is not JSON.
    @Test(arguments: [
        (nil, "cannot read"),
        ("", "is empty"),
        ("hello\n", "is not a FlowBus recording"),
        ("{\"format\":\"flowbus-recording\",\"version\":2,\"startedAt\":0}\n", "recording version 2 is not supported"),
        (
            "{\"format\":\"flowbus-recording\",\"version\":1,\"startedAt\":0}\n{\"at\":0,\"session\":\"s\",\"kind\":\"step\"}\n",
            ":2: a step without 'step'"
        ),
        ("{\"format\":\"flowbus-recording\",\"version\":1,\"startedAt\":0}\n{\"at\":0,\n", ":2: not an action"),
    ])
    func badRecordingsAreRefusedWithTheLine(contents: String?, message: String) throws {
        let file = uniqueDirectory() + "/bad.flowrec"
        if let contents {
            try FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true
            )
            try contents.write(toFile: file, atomically: true, encoding: .utf8)
        }
        let result = try run(try builtProduct("flowctl"), ["replay", "--offline", file, "--flows", demoFlows])
        #expect(result.status == 1)
        #expect(result.errors.contains(message))
    }

    // Tried: offline without flows, flows without offline, a zero rate, recording over an existing file.
    @Test func badReplayAndRecordArgumentsAreUsageErrors() throws {
        let flowctl = try builtProduct("flowctl")
        #expect(try run(flowctl, ["replay", "--offline", "x.flowrec"]).status == 64)
        #expect(try run(flowctl, ["replay", "x.flowrec", "--flows", demoFlows]).status == 64)
        #expect(try run(flowctl, ["replay", "x.flowrec", "--rate", "0"]).status == 64)
        let existing = try run(flowctl, ["record", demoFlows])
        #expect(existing.status == 64)
        #expect(existing.errors.contains("exists; choose another file or pass --force"))
    }

    private func tree(_ json: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
    }

    private func trees(_ json: String) throws -> [JSONValue] {
        try tree(json).arrayValue ?? []
    }

    private func renamed(_ tree: JSONValue?, to session: String) -> JSONValue? {
        guard var object = tree?.objectValue else { return nil }
        object["session"] = .string(session)
        return .object(object)
    }
}
