import ArgumentParser
import FlowBus
import FlowInspector
import FlowSpec
import FlowWire
import Foundation

/// `flowctl replay FILE`: a recording, into flowd or into an engine in this process.
struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a recording into flowd (at recorded speed, --rate or --fast), or --offline with no daemon.",
        discussion: """
            Online, each recorded stepper and presenter connects under its name and each input is sent once flowd \
            has handled the one before, so flowd sees them in the recorded order; the sessions must not exist yet \
            (--session replays a one-session recording under another name). --offline replays into flowd's engine \
            in this process with the flow file given by --flows. Both print the final trees (--json: a JSON array).

            Exits 0 when replayed, 1 when the recording cannot be read or an input is refused, 69 when flowd is \
            unreachable.

            Examples:
              flowctl replay bug-1234.flowrec --session bug-1234 --fast
              flowctl replay bug-1234.flowrec --rate 4
              flowctl replay --offline bug-1234.flowrec --flows deploy/flows/movies.yaml
            """
    )

    @Argument(help: "The recording.")
    var file: String

    @Option(help: "Replay a one-session recording into this session instead.")
    var session: String?

    @Option(help: "Speed: 1 is as recorded, 2 twice as fast, 0.5 half.")
    var rate = 1.0

    @Flag(help: "As fast as possible (each input still waits for the one before to be handled).")
    var fast = false

    @Flag(help: "Replay into an engine in this process; no daemon.")
    var offline = false

    @Option(help: "The flow file (with --offline).")
    var flows: String?

    @Flag(help: "Print the final trees as a JSON array.")
    var json = false

    @OptionGroup var bus: BusOptions

    func validate() throws {
        guard rate > 0 else {
            throw ValidationError("--rate must be positive, not \(rate)")
        }
        if offline && flows == nil {
            throw ValidationError("--offline needs the flow file: --flows FILE")
        }
        if !offline && flows != nil {
            throw ValidationError("--flows goes with --offline (online, flowd has its flows)")
        }
    }

    func run() async throws {
        var recording: Recording
        do {
            recording = try Recording(contentsOf: file)
        } catch {
            printError("flowctl: \(error.message)")
            throw ExitCode(1)
        }
        if let session {
            let sessions = recording.sessions
            guard sessions.count <= 1 else {
                printError("flowctl: --session renames one session; \(file) has \(sessions.joined(separator: ", "))")
                throw ExitCode(1)
            }
            recording.actions = recording.actions.map {
                var action = $0
                action.session = session
                return action
            }
        }
        if offline {
            try replayOffline(recording)
        } else {
            try await replayOnline(recording)
        }
    }

    private func replayOffline(_ recording: Recording) throws {
        let specification: FlowSpecification
        do {
            specification = try FlowSpecification.load(contentsOf: flows ?? "")
        } catch {
            printError("flowctl: \(error)")
            throw ExitCode(1)
        }
        let outcome = OfflineReplay(specification: specification).replay(recording)
        try show(outcome.trees)
        printError(
            "replayed \(recording.actions.count) inputs offline: \(outcome.accepted) steps accepted, \(outcome.dropped) dropped"
        )
        for problem in outcome.refused {
            printError("flowctl: refused: \(problem)")
        }
        if !outcome.refused.isEmpty {
            throw ExitCode(1)
        }
    }

    private func replayOnline(_ recording: Recording) async throws {
        let inspector = try await bus.inspector()
        let existing = (try await bus.allPages(inspector, "sessions").arrayValue ?? []).compactMap {
            $0.objectValue?["session"]?.stringValue
        }
        if let taken = recording.sessions.first(where: existing.contains) {
            await inspector.close()
            printError("flowctl: flowd already has session '\(taken)'; replay into a new one with --session NAME")
            throw ExitCode(1)
        }
        let echoes = try await InspectionStream.open(options: bus.clientOptions)
        // Each recorded stepper and presenter connects under its own id (`<session>/<name>`), not --id.
        var peerOptions = bus.clientOptions
        peerOptions.id = nil
        let replay = OnlineReplay(
            options: peerOptions,
            timeout: .milliseconds(bus.timeout),
            inspector: inspector,
            echoes: echoes
        )
        replay.start()
        let clock = ContinuousClock()
        let started = clock.now
        var failure: String?
        for action in recording.actions {
            if !fast {
                let due = started + .milliseconds(Int64(Double(action.at) / rate))
                if clock.now < due {
                    try await Task.sleep(until: due, clock: clock)
                }
            }
            do {
                try await replay.perform(action, in: action.session)
            } catch let error as FlowBusError {
                failure = "\(action.kind.rawValue) at \(action.at) ms: \(error.message)"
                break
            }
        }
        var trees: [SessionTree] = []
        for session in recording.sessions {
            if let reply = try? await inspector.query("tree", session: session, timeout: .milliseconds(bus.timeout)),
                let tree = try? SessionTree(reply)
            {
                trees.append(tree)
            } else {
                printError("flowctl: could not read session '\(session)''s tree from flowd after the replay")
            }
        }
        await replay.close()
        await inspector.close()
        try show(trees)
        let counts = replay.counts
        printError(
            "replayed \(recording.actions.count) inputs into flowd: \(counts.accepted) steps accepted, \(counts.dropped) dropped"
        )
        if let failure {
            printError("flowctl: refused: \(failure)")
            throw ExitCode(1)
        }
    }

    private func show(_ trees: [SessionTree]) throws {
        if json {
            try printJSON(trees)
        } else {
            print(trees.map { TreeRenderer().text($0).joined(separator: "\n") }.joined(separator: "\n\n"))
        }
    }
}
