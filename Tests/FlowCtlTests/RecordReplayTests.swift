import FlowBus
import FlowBusTesting
import Foundation
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
        // Then a report flowd refuses (a screen that is not on screen): recorded as refused, left out of replays.
        try presenter.report(.visible, [PresentableID(99)])
        waitUntil { (try? String(contentsOfFile: file, encoding: .utf8))?.contains("\"fate\":\"refused\"") == true }
        recorder.terminate(with: SIGINT)
        #expect(recorder.process.terminationStatus == 0)
        #expect(recorder.output.contains("recorded 8 inputs to \(file)"))

        let recorded = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
        try #require(recorded.count == 9)
        #expect(recorded[0].contains("\"format\":\"flowbus-recording\""))
        #expect(recorded[1].contains("\"kind\":\"visibility\"") && recorded[1].contains("\"presenter\":\"main\""))
        #expect(recorded[2].contains("\"kind\":\"step\"") && recorded[2].contains("\"stepper\":\"app\""))
        #expect(recorded[2].contains("\"fate\":\"accepted\""))
        #expect(recorded[7].contains("\"presentable\":5") && recorded[7].contains("\"presenter\":\"main\""))
        #expect(recorded[7].contains("\"fate\":\"dropped\"") && recorded[7].contains("\"reason\":\"notVisible\""))
        #expect(recorded[8].contains("\"presentables\":[99]") && recorded[8].contains("\"fate\":\"refused\""))

        let original = try tree(try bus.flowctl(["tree", "kiosk", "--json"]).output)

        let online = try bus.flowctl(["replay", file, "--session", "copy", "--fast", "--json"])
        #expect(online.status == 0)
        #expect(
            online.errors.contains(
                "replayed 7 inputs into flowd: 2 steps accepted, 1 dropped; 1 refused when recorded, left out"
            )
        )
        #expect(!online.errors.contains("fate differs"))
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
        #expect(offline.status == 0, "\(offline.errors)")
        #expect(try trees(offline.output).first == original)
        #expect(offline.errors.contains("; 1 refused when recorded, left out"))

        // What the recording holds, without replaying it.
        let info = try run(try builtProduct("flowctl"), ["info", file])
        #expect(info.status == 0)
        #expect(info.output.contains("sessions:  kiosk"))
        #expect(info.output.contains("inputs:    8 (1 refused by flowd, left out when replayed)"))
        #expect(info.output.contains("  visibility  5\n"))
        #expect(info.output.contains("  stepper app     1\n"))
        #expect(info.output.contains("  dropped: notVisible  1\n"))

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

    /// A replay paced from an offset, stepped through with Enter, and looped until Ctrl-C.
    @Test func aReplayStartsAtAnOffsetStepsThroughAndLoops() async throws {
        let bus = try Bus()
        let scratch = ScratchDirectory("replay")
        let file = scratch.path + "/journey.flowrec"
        let recorder = try bus.startFlowctl(
            ["record", file, "--session", "kiosk", "--wait"],
            ready: "recording session kiosk"
        )
        let presenter = try await ScriptedJourney(bus: bus).run()
        waitUntil { (try? String(contentsOfFile: file, encoding: .utf8))?.contains("\"withId\":8") == true }
        recorder.terminate(with: SIGINT)
        let original = try tree(try bus.flowctl(["tree", "kiosk", "--json"]).output)

        // Past the end: every input at once.
        let offset = try bus.flowctl(["replay", file, "--session", "late", "--start-offset", "3600", "--json"])
        #expect(offset.status == 0, "\(offset.errors)")
        #expect(renamed(try trees(offset.output).first, to: "kiosk") == original)

        // Paused: nothing is sent before Enter. (The first input's time is how long after the recording started it
        // came: under a second nearly always, 1.02 s once in 12 runs, its presenter waiting to hear its subscription
        // confirmed.)
        let stepping = try ChildProcess(
            "flowctl",
            ["replay", file, "--session", "stepped", "--start-paused"] + bus.endpoints
        )
        try stepping.waitForOutput(containing: "next: ", within: .seconds(30))
        #expect(try await bus.visibility(of: 1, in: "stepped") == nil)
        stepping.send("")
        try await eventually("the first input sent") { try await bus.visibility(of: 1, in: "stepped") == "visible" }
        for _ in 0..<6 {
            stepping.send("")
        }
        let stepped = try stepping.waitForExit(within: .seconds(20))
        #expect(stepping.process.terminationStatus == 0, "\(stepped)")
        #expect(stepped.components(separatedBy: "next: ").count - 1 == 7)
        #expect(stepped.contains("step movieIsPicked from screen p5"))

        // Looped: each round ends the session and replays it again, until Ctrl-C.
        let looping = try ChildProcess(
            "flowctl",
            ["replay", file, "--session", "looped", "--fast", "--loop"] + bus.endpoints
        )
        try looping.waitForOutput(containing: "round 2: replayed 7 inputs", within: .seconds(30))
        looping.terminate(with: SIGINT)
        #expect(looping.process.terminationStatus == 0, "\(looping.output)")
        await presenter.close()
        #expect(bus.daemon.signal(SIGTERM) == 0)
    }

    // Tried: offline without flows, flows without offline, a zero rate, a rate with --fast, --fast with
    // --start-paused, a negative offset, options that pace a replay with --offline, recording over an existing file.
    @Test func badReplayAndRecordArgumentsAreUsageErrors() throws {
        let flowctl = try builtProduct("flowctl")
        #expect(try run(flowctl, ["replay", "--offline", "x.flowrec"]).status == 64)
        #expect(try run(flowctl, ["replay", "x.flowrec", "--flows", demoFlows]).status == 64)
        #expect(try run(flowctl, ["replay", "x.flowrec", "--rate", "0"]).status == 64)
        let both = try run(flowctl, ["replay", "x.flowrec", "--rate", "2", "--fast"])
        #expect(both.status == 64)
        #expect(both.errors.contains("--fast and --rate 2.0 contradict each other; give one"))
        #expect(try run(flowctl, ["replay", "x.flowrec", "--fast", "--start-paused"]).status == 64)
        #expect(try run(flowctl, ["replay", "x.flowrec", "--start-offset", "-1"]).status == 64)
        for option in [["--loop"], ["--fast"], ["--rate", "2"], ["--start-offset", "1"], ["--start-paused"]] {
            let offline = try run(flowctl, ["replay", "--offline", "x.flowrec", "--flows", demoFlows] + option)
            #expect(offline.status == 64, "\(option)")
            #expect(offline.errors.contains("--offline replays at once"), "\(option): \(offline.errors)")
        }
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

/// What an outsider found recordings and replays got wrong, each tried against a real flowd.
@Suite struct RecordingEdgeTests {
    private static let header = "{\"format\":\"flowbus-recording\",\"version\":1,\"session\":\"kiosk\",\"startedAt\":0}"

    /// A recorder started while screens are on screen knows who shows them: their steps are kept, with their
    /// presenter.
    @Test func aRecordingStartedLateKeepsTheStepsOfScreensAlreadyShown() async throws {
        let bus = try Bus()
        let presenter = try await ScriptedJourney(bus: bus).run()
        let scratch = ScratchDirectory("late")
        let file = scratch.path + "/late.flowrec"
        let recorder = try bus.startFlowctl(["record", file, "--session", "kiosk"], ready: "recording session kiosk")
        let emitted = try bus.flowctl(["emit", "castIsPicked", "--param", "withId=3", "--from", "p7"])
        #expect(emitted.status == 0, "\(emitted.errors)")
        waitUntil { (try? String(contentsOfFile: file, encoding: .utf8))?.contains("castIsPicked") == true }
        recorder.terminate(with: SIGINT)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("\"presentable\":7") && text.contains("\"presenter\":\"main\""), "\(text)")
        #expect(!recorder.output.contains("left out"))
        await presenter.close()
        #expect(bus.daemon.signal(SIGTERM) == 0)
    }

    /// Offline, a step whose parameters do not match the flow file is dropped as flowd drops it; online, a report
    /// flowd refuses is a refusal (exit 1); a replay paused from an offset pauses from there; Ctrl-C stops a loop
    /// within its round.
    @Test func replaysDoAsFlowdDidAndStopWhenAsked() throws {
        let bus = try Bus()
        let scratch = ScratchDirectory("edges")
        let file = scratch.path + "/edges.flowrec"
        let lines = [
            Self.header,
            "{\"at\":0,\"session\":\"kiosk\",\"kind\":\"visibility\",\"presenter\":\"main\",\"visibility\":\"visible\",\"presentables\":[1]}",
            "{\"at\":100,\"session\":\"kiosk\",\"kind\":\"step\",\"stepper\":\"app\",\"step\":{\"name\":\"movieIsPicked\",\"parameters\":{\"withId\":\"abc\"}},\"fate\":\"dropped\",\"reason\":\"invalidParameters\"}",
            "{\"at\":200,\"session\":\"kiosk\",\"kind\":\"step\",\"stepper\":\"app\",\"step\":{\"name\":\"dashboardIsRequired\",\"parameters\":{}},\"fate\":\"accepted\"}",
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let offline = try run(try builtProduct("flowctl"), ["replay", "--offline", file, "--flows", demoFlows])
        #expect(offline.status == 0, "\(offline.errors)")
        #expect(!offline.errors.contains("fate differs"))
        #expect(offline.errors.contains("1 steps accepted, 1 dropped"), "\(offline.errors)")

        // A report of a screen the new session does not have.
        let refused = scratch.path + "/refused.flowrec"
        try ([Self.header, lines[1].replacingOccurrences(of: "[1]", with: "[99]")].joined(separator: "\n") + "\n")
            .write(toFile: refused, atomically: true, encoding: .utf8)
        let online = try bus.flowctl(["replay", refused, "--session", "r", "--fast"])
        #expect(online.status == 1)
        #expect(online.errors.contains("refused: visibility at 0 ms: flowd refused main's report of p99"))

        // Paused from an offset: the inputs before it go at once, the first pause is at the offset.
        let paused = try ChildProcess(
            "flowctl",
            ["replay", file, "--session", "p", "--start-offset", "0.15", "--start-paused"] + bus.endpoints
        )
        try paused.waitForOutput(containing: "next: 0.200 s step dashboardIsRequired", within: .seconds(30))
        #expect(!paused.output.contains("next: 0.000") && !paused.output.contains("next: 0.100"))
        paused.send("")
        _ = try paused.waitForExit(within: .seconds(20))
        #expect(paused.process.terminationStatus == 0, "\(paused.output)")

        // A loop at recorded speed with an hour between two inputs: Ctrl-C stops it at once.
        let long = scratch.path + "/long.flowrec"
        try
            ([Self.header, lines[1], lines[3].replacingOccurrences(of: "\"at\":200", with: "\"at\":3600000")]
            .joined(separator: "\n") + "\n").write(toFile: long, atomically: true, encoding: .utf8)
        let looping = try ChildProcess("flowctl", ["replay", long, "--session", "l", "--loop"] + bus.endpoints)
        #expect(try waitUntil(within: .seconds(20)) { try bus.flowctl(["tree", "l"]).status == 0 })
        looping.terminate(with: SIGINT)
        #expect(looping.output.contains("interrupted; the round stops here"), "\(looping.output)")
        // The round's summary counts what was sent: the first input, not the one an hour later.
        #expect(looping.output.contains("round 1: replayed 1 input into flowd"), "\(looping.output)")
        #expect(bus.daemon.signal(SIGTERM) == 0)
    }
}
