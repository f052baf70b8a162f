import FlowBus
import FlowBusTesting
import Foundation
import Testing

/// Every example in every `flowctl` subcommand's `--help` runs, as a user would paste it, against a real flowd on
/// the demo flows with the session the examples name (kiosk-7) on the scripted journey. What follows a pipe or a
/// redirection is left out (jq, dot), and so is a comment; an example naming a remote flowd is pointed at this one.
/// The commands that stream until stopped (watch, stats, record, web) are stopped with Ctrl-C once they have run 1.5 s
/// without an error (`flowctl web` on a port the system chooses); the others must end by themselves, with 0 (or 2: a step dropped). Replays run
/// against a flowd of their own, which has not the recorded session yet.
@Suite struct HelpExamplesTests {
    @Test func everyExampleInEveryHelpRuns() async throws {
        let bus = try Bus()
        let presenter = try await ScriptedJourney(bus: bus, session: "kiosk-7").run()
        let replays = try Bus()
        let scratch = ScratchDirectory("examples")
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path + "/deploy",
            withDestinationPath: repositoryRoot.appendingPathComponent("deploy").path
        )
        let flowctl = try builtProduct("flowctl")
        let examples = try Self.examples(of: flowctl)
        #expect(examples.count >= 40, "only \(examples.count) examples found")
        // The commands that stream until stopped run first, side by side (each for 1.5 s: one after the other they
        // took most of this test's time; the recording they make is the one the replays and info examples read);
        // ending kiosk-7 comes last: the other examples use it.
        let streams = { (example: String) in
            ["flowctl watch", "flowctl stats", "flowctl record", "flowctl web"].contains { example.hasPrefix($0) }
                && !example.contains("--once")
        }
        let ending = { (example: String) in example.hasPrefix("flowctl end ") }
        let prepared = { (example: String) -> (command: String, target: Bus) in
            let target = example.hasPrefix("flowctl replay ") && !example.contains("--offline") ? replays : bus
            var command = example
            for remote in ["tcp://10.0.0.7:5860"] {
                command = command.replacingOccurrences(of: remote, with: target.endpoints[1])
            }
            if command.hasPrefix("flowctl web") {
                // Its page on a port the system chooses: a fixed one may be another program's on this machine.
                command = command.replacing(/--port \d+/, with: "") + " --port 0"
            }
            return (command, target)
        }
        let check = { (example: String, outcome: Outcome) in
            switch outcome {
            case .exited(let status, let errors):
                // 2: a step emitted or a deep link sent was dropped, which the example may well be.
                #expect(status == 0 || status == 2, "\(example) → exit \(status): \(errors)")
            case .stopped:
                #expect(streams(example), "\(example) was still running after 20 s")
            }
        }
        let streaming = examples.filter(streams)
        let outcomes = Locked([String: Outcome]())
        let done = DispatchGroup()
        for example in streaming {
            let (command, target) = prepared(example)
            done.enter()
            Thread {
                let outcome = Result {
                    try Self.run(
                        command,
                        flowctl: flowctl,
                        in: scratch.path,
                        endpoints: target.endpoints,
                        stoppingAfter: .milliseconds(1500)
                    )
                }
                outcomes.withLock { $0[example] = (try? outcome.get()) ?? .exited(-1, "\(outcome)") }
                done.leave()
            }.start()
        }
        done.wait()
        for example in streaming {
            check(example, outcomes.withLock { $0[example] } ?? .exited(-1, "it did not run"))
        }
        for example in examples where !streams(example) && !ending(example) {
            let (command, target) = prepared(example)
            let outcome = try Self.run(
                command,
                flowctl: flowctl,
                in: scratch.path,
                endpoints: target.endpoints,
                stoppingAfter: .seconds(20)
            )
            check(example, outcome)
        }
        for example in examples where ending(example) {
            let (command, target) = prepared(example)
            check(
                example,
                try Self.run(
                    command,
                    flowctl: flowctl,
                    in: scratch.path,
                    endpoints: target.endpoints,
                    stoppingAfter: .seconds(20)
                )
            )
        }
        await presenter.close()
        #expect(bus.daemon.signal(SIGTERM) == 0)
        #expect(replays.daemon.signal(SIGTERM) == 0)
    }

    private enum Outcome: Sendable {
        case exited(Int32, String)
        case stopped
    }

    /// The example lines of every subcommand's help: those under "Examples:" that start with `flowctl`, cut at a
    /// pipe, a redirection or a comment.
    private static func examples(of flowctl: String) throws -> [String] {
        let help = try FlowBusTesting.run(flowctl, ["--help"]).output
        let subcommands =
            help.components(separatedBy: "SUBCOMMANDS:").last?.split(separator: "\n").compactMap { line in
                line.hasPrefix("  ") && !line.hasPrefix("   ") ? line.split(separator: " ").first.map(String.init) : nil
            } ?? []
        var examples: [String] = []
        for subcommand in subcommands {
            let text = try FlowBusTesting.run(flowctl, [subcommand, "--help"]).output
            guard let section = text.components(separatedBy: "Examples:").dropFirst().first else { continue }
            for line in section.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard line.hasPrefix("flowctl ") else { continue }
                let cut = line.components(separatedBy: " | ")[0].components(separatedBy: " > ")[0]
                examples.append(cut.components(separatedBy: "  #")[0].trimmingCharacters(in: .whitespaces))
            }
        }
        return examples
    }

    /// Runs `command` with /bin/sh (its quoting as a user's shell reads it), flowctl first on the PATH and flowd's
    /// endpoints in the environment; one still running after `limit` gets Ctrl-C.
    private static func run(
        _ command: String,
        flowctl: String,
        in directory: String,
        endpoints: [String],
        stoppingAfter limit: Duration
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec " + command]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = (flowctl as NSString).deletingLastPathComponent + ":" + (environment["PATH"] ?? "")
        environment["FLOWBUS_CONTROL"] = endpoints[1]
        environment["FLOWBUS_EVENTS"] = endpoints[3]
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let collected = Locked("")
        let reading = Thread {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            collected.withLock { $0 = String(decoding: data, as: UTF8.self) }
        }
        reading.start()
        let finished = waitUntil(within: limit) { !process.isRunning }
        if !finished {
            kill(process.processIdentifier, SIGINT)
            _ = waitUntil(within: .seconds(10)) { !process.isRunning }
            if process.isRunning {
                process.terminate()
            }
        }
        process.waitUntilExit()
        _ = waitUntil(within: .seconds(5)) { !reading.isExecuting }
        return finished ? .exited(process.terminationStatus, collected.withLock { $0 }) : .stopped
    }
}
