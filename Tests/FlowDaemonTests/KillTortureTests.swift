import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// flowd killed again and again while real stepper processes emit and a real presenter process draws: every step
/// that got an acknowledgement is in the final tree exactly once, no step is applied twice, and the presenter
/// shows what flowd holds.
@Suite(.serialized) struct KillTortureTests {
    /// Three stepper processes, each numbering its ticks; every tick pushes a screen that says whose it is.
    static let flows = """
        version: 1
        session:
          root: Ticks
          stepper: { composite: [{ named: s1 }, { named: s2 }, { named: s3 }] }
        steps:
          tick: { s: int, n: int }
        flows:
          Ticks:
            root: { stack: ticks }
            on:
              tick:
                - show: Tick
                  params: { s: $s, n: $n }
        """

    struct Tick: Hashable, Comparable, CustomStringConvertible {
        let stepper: Int
        let number: Int

        static func < (lhs: Tick, rhs: Tick) -> Bool {
            (lhs.stepper, lhs.number) < (rhs.stepper, rhs.number)
        }

        var description: String { "s\(stepper)#\(number)" }
    }

    @Test(arguments: [SIGKILL, SIGTERM])
    func everyAcknowledgedStepSurvivesTwentyRestartsExactlyOnce(signal: Int32) throws {
        let directory = uniqueDirectory("kt")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let flowsPath = directory + "/flows.yaml"
        try Self.flows.write(toFile: flowsPath, atomically: true, encoding: .utf8)
        let control = "ipc://\(directory)/control"
        let events = "ipc://\(directory)/events"
        let arguments = [
            "--flows", flowsPath, "--state-dir", directory + "/state", "--control", control, "--events", events,
            "--heartbeat-interval", "200", "--heartbeat-timeout", "1000",
        ]
        var daemon = try DaemonProcess(arguments)
        _ = try daemon.readyEndpoints()
        let connection = [
            "--control", control, "--events", events, "--session", "torture", "--connect-timeout", "30000",
            "--reconnect-interval-max", "100",
        ]
        let presenter = try ChildProcess("flowdemo", ["presenter", "--plain"] + connection)
        let steppers = try (1...3).map { try ChildProcess("flowdemo", ["stepper", "--name", "s\($0)"] + connection) }
        for stepper in steppers {
            try stepper.waitForOutput(containing: "connected to session torture")
        }
        let perStepper = 25
        for (index, stepper) in steppers.enumerated() {
            for number in 1...perStepper {
                stepper.send("emit tick s=\(index + 1) n=\(number)")
            }
        }
        // Twenty times: once steps are flowing again, flowd dies at a random moment and is started again.
        var random = SystemRandomNumberGenerator()
        for _ in 1...20 {
            let before = Self.fates(steppers).count
            _ = waitUntil(within: .seconds(30)) {
                Self.fates(steppers).count > before || Self.allAnswered(steppers, perStepper)
            }
            Thread.sleep(forTimeInterval: Double.random(in: 0...0.03, using: &random))
            #expect(daemon.signal(signal) != nil, "flowd did not stop")
            daemon = try DaemonProcess(arguments)
            _ = try daemon.readyEndpoints()
        }
        #expect(
            waitUntil(within: .seconds(60)) { Self.allAnswered(steppers, perStepper) },
            "the steppers did not get every fate: \(steppers.map(\.output))"
        )

        // Every step was acknowledged, accepted, and is on screen exactly once, in each stepper's order.
        let fates = Self.fates(steppers)
        let accepted = fates.filter(\.accepted).map(\.tick)
        #expect(fates.count == 3 * perStepper)
        #expect(accepted.count == fates.count, "some steps were not accepted: \(fates.filter { !$0.accepted })")
        let inTree = try Self.ticksInTree(control: control, events: events)
        #expect(inTree.count == Set(inTree).count, "applied twice: \(inTree)")
        #expect(Set(inTree) == Set(accepted))
        for stepper in 1...3 {
            #expect(inTree.filter { $0.stepper == stepper }.map(\.number) == Array(1...perStepper))
        }
        // The presenter draws what flowd holds.
        let drawn = waitUntil(within: .seconds(20)) { Self.lastFrameTicks(presenter.output) == inTree }
        #expect(drawn, "the presenter's last frame: \(Self.lastFrameTicks(presenter.output)), flowd's tree: \(inTree)")
        for stepper in steppers {
            stepper.send("quit")
        }
        presenter.send("quit")
    }

    /// The fates the steppers printed: `[s1] emit tick{"n":5,"s":1}: accepted by f1`.
    static func fates(_ steppers: [ChildProcess]) -> [(tick: Tick, accepted: Bool)] {
        steppers.flatMap { stepper in
            stepper.output.split(separator: "\n").compactMap { line -> (Tick, Bool)? in
                guard let tick = tick(in: line, after: "emit tick"), let colon = line.range(of: "}: ") else {
                    return nil
                }
                return (tick, line[colon.upperBound...].hasPrefix("accepted"))
            }
        }
    }

    static func allAnswered(_ steppers: [ChildProcess], _ perStepper: Int) -> Bool {
        fates(steppers).count >= 3 * perStepper
    }

    /// The tick in `{"n":5,"s":1}` or `(n: 5, s: 1)` after `marker` in a line.
    static func tick(in line: Substring, after marker: String) -> Tick? {
        guard let start = line.range(of: marker) else { return nil }
        let digits = line[start.upperBound...].split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        guard digits.count == 2 else { return nil }
        return Tick(stepper: digits[1], number: digits[0])
    }

    /// The Tick screens of the presenter's last frame, bottom of the stack first: its line of the stack is
    /// `▤ ticks: Tick(n: 1, s: 2) › Tick(n: 1, s: 1) › ...`.
    static func lastFrameTicks(_ output: String) -> [Tick] {
        guard let frame = output.components(separatedBy: "╭─ window main").last,
            let stack = frame.split(separator: "\n").first(where: { $0.contains("▤ ticks:") })
        else { return [] }
        return stack.components(separatedBy: " › ").compactMap { tick(in: Substring($0), after: "Tick(") }
    }

    /// The screens in flowd's tree of a session, in placement order, as the `tree` query gives them.
    static func screens(of session: String, control: String, events: String) throws -> [JSONObject] {
        let context = try Context()
        let probe = try TestPeer(
            "probe-\(UUID().uuidString.prefix(6))",
            session: session,
            context: context,
            control: control,
            events: events
        )
        try probe.hello(.inspector, name: "probe")
        try probe.send(.query(Query(what: "tree", arguments: ["session": .string(session)])))
        let tree = try probe.expect { message in
            if case .reply(let reply) = message { reply.result.objectValue } else { nil }
        }
        return tree["screens"]?.arrayValue?.compactMap(\.objectValue) ?? []
    }

    /// The Tick screens in flowd's tree of the session, in placement order.
    static func ticksInTree(control: String, events: String, session: String = "torture") throws -> [Tick] {
        try screens(of: session, control: control, events: events).filter { $0["name"] == "Tick" }.compactMap {
            screen in
            let parameters = screen["parameters"]?.objectValue
            guard let stepper = parameters?["s"]?.intValue, let number = parameters?["n"]?.intValue else { return nil }
            return Tick(stepper: stepper, number: number)
        }
    }
}
