import ArgumentParser
import Dispatch
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

            Inputs flowd refused when they were recorded are left out, as flowd left them out; a step whose fate \
            differs from the recorded one is reported (the flows or flowd differ from the recorded ones). \
            Online, --start-offset sends the inputs before that point at once and paces the rest; --start-paused \
            shows each input and waits for Enter before sending it; --loop ends the sessions after each round and \
            replays again until Ctrl-C.

            Exits 0 when replayed, 1 when the recording cannot be read, an input is refused or a fate differs, 69 \
            when flowd is unreachable.

            Examples:
              flowctl replay bug-1234.flowrec --session bug-1234 --fast
              flowctl replay bug-1234.flowrec --rate 4
              flowctl replay bug-1234.flowrec --start-offset 12.5 --start-paused
              flowctl replay --offline bug-1234.flowrec --flows deploy/flows/movies.yaml
            """
    )

    @Argument(help: "The recording.")
    var file: String

    @Option(help: "Replay a one-session recording into this session instead.")
    var session: String?

    @Option(help: "Speed: 1 is as recorded (the default), 2 twice as fast, 0.5 half.")
    var rate: Double?

    @Flag(help: "As fast as possible (each input still waits for the one before to be handled).")
    var fast = false

    @Flag(help: "Replay into an engine in this process; no daemon.")
    var offline = false

    @Option(help: "The flow file (with --offline).")
    var flows: String?

    @Flag(help: "Print the final trees as a JSON array.")
    var json = false

    @Option(help: "Send the inputs before this many seconds into the recording at once, then pace the rest.")
    var startOffset: Double?

    @Flag(help: "Show each input and wait for Enter before sending it (step through the recording).")
    var startPaused = false

    @Flag(help: "Replay again and again (the sessions ended between rounds) until Ctrl-C.")
    var loop = false

    @OptionGroup var bus: BusOptions

    func validate() throws {
        if let rate, !(rate > 0) || !rate.isFinite {
            throw ValidationError("--rate must be a positive number, not \(rate)")
        }
        if let startOffset, !(startOffset >= 0) || !startOffset.isFinite {
            throw ValidationError("--start-offset must be 0 or more seconds, not \(startOffset)")
        }
        if fast, let rate {
            throw ValidationError("--fast and --rate \(rate) contradict each other; give one")
        }
        if fast, let startOffset {
            throw ValidationError(
                "--fast and --start-offset \(startOffset) contradict each other: --fast sends every input at once"
            )
        }
        if fast && startPaused {
            throw ValidationError("--fast and --start-paused contradict each other: paused, each input waits for Enter")
        }
        if offline {
            let online = [
                ("--rate", rate != nil), ("--fast", fast), ("--start-offset", startOffset != nil),
                ("--start-paused", startPaused), ("--loop", loop),
            ]
            if let (name, _) = online.first(where: { $0.1 }) {
                throw ValidationError("\(name) paces a replay into flowd; --offline replays at once")
            }
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
        if let cut = recording.cutLine {
            printError(
                "flowctl: \(file):\(cut): the last line was cut short (the recorder stopped while writing it): left out"
            )
        }
        // An offset past the last input sends every input at once: said, not done silently.
        if let startOffset, let last = recording.actions.filter({ $0.fate != .refused }).map(\.at).max(),
            Int64(startOffset * 1000) > last
        {
            printError(
                "flowctl: --start-offset \(startOffset) s is past the last input of \(file), at \(Double(last) / 1000) s: every input is sent at once, unpaced"
            )
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
            "replayed \(recording.actions.count - outcome.skipped) inputs offline: \(outcome.accepted) steps accepted, \(outcome.dropped) dropped\(Self.skippedNote(outcome.skipped))"
        )
        for problem in outcome.refused {
            printError("flowctl: refused: \(problem)")
        }
        for divergence in outcome.divergences {
            printError("flowctl: fate differs: \(divergence)")
        }
        if !outcome.refused.isEmpty || !outcome.divergences.isEmpty {
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
        let interrupted = Locked(false)
        let signals = loop ? Self.interruptions(raising: interrupted) : []
        defer {
            for source in signals {
                source.cancel()
            }
        }
        var round = 1
        while true {
            let failed = try await replayRound(recording, inspector: inspector, round: round, interrupted: interrupted)
            if failed || !loop || interrupted.update({ $0 }) {
                await inspector.close()
                if failed { throw ExitCode(1) }
                return
            }
            // The next round starts from nothing: the sessions the round made are ended first.
            for session in recording.sessions {
                _ = try? await bus.query(inspector, "endSession", session: session)
            }
            round += 1
        }
    }

    /// One replay of every input (those flowd refused when recording left out); prints the trees. Returns whether
    /// an input was refused or a fate differed.
    private func replayRound(
        _ recording: Recording,
        inspector: InspectorClient,
        round: Int,
        interrupted: Locked<Bool>
    ) async throws -> Bool {
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
        let offset = Int64((startOffset ?? 0) * 1000)
        let speed = rate ?? 1
        let started = clock.now
        var failure: String?
        var skipped = 0
        var sent = 0
        var paused = startPaused
        for action in recording.actions {
            if action.fate == .refused {
                skipped += 1
                continue
            }
            if interrupted.update({ $0 }) {
                printError("flowctl: interrupted; the round stops here")
                break
            }
            if paused && action.at >= offset {
                printError("next: \(Self.summary(action)) — Enter sends it")
                paused = await Task.detached { readLine() }.value != nil
                if !paused {
                    printError("flowctl: standard input ended: the rest plays without pauses")
                }
            } else if !fast && action.at > offset {
                let due = started + .milliseconds(Int64(Double(action.at - offset) / speed))
                // In short naps, so that Ctrl-C during --loop is heard within a tenth of a second.
                while clock.now < due && !interrupted.update({ $0 }) {
                    try await Task.sleep(until: min(due, clock.now + .milliseconds(100)), clock: clock)
                }
                if interrupted.update({ $0 }) {
                    printError("flowctl: interrupted; the round stops here")
                    break
                }
            }
            do {
                try await replay.perform(action, in: action.session)
                sent += 1
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
        try show(trees)
        let counts = replay.counts
        printError(
            "\(loop ? "round \(round): " : "")replayed \(sent) input\(sent == 1 ? "" : "s") into flowd: \(counts.accepted) steps accepted, \(counts.dropped) dropped\(Self.skippedNote(skipped))"
        )
        for divergence in counts.divergences {
            printError("flowctl: fate differs: \(divergence)")
        }
        for refusal in counts.refused {
            printError("flowctl: refused: \(refusal)")
        }
        if let failure {
            printError("flowctl: refused: \(failure)")
        }
        return failure != nil || !counts.divergences.isEmpty || !counts.refused.isEmpty
    }

    /// "; N refused when recorded, left out", or nothing.
    static func skippedNote(_ skipped: Int) -> String {
        skipped == 0 ? "" : "; \(skipped) refused when recorded, left out"
    }

    /// An action in a few words, for --start-paused.
    static func summary(_ action: RecordedAction) -> String {
        let at = String(format: "%.3f s", Double(action.at) / 1000)
        switch action.kind {
        case .step:
            let from = action.stepper.map { "stepper \($0)" } ?? "screen p\(action.presentable?.rawValue ?? 0)"
            return "\(at) step \(TerminalText.safe(action.step?.name ?? "?")) from \(TerminalText.safe(from))"
        case .deepLink: return "\(at) deep link \((action.path ?? []).map(\.name).joined(separator: " → "))"
        case .visibility:
            return
                "\(at) \(action.presenter ?? "?") reports \((action.presentables ?? []).map { "p\($0.rawValue)" }.joined(separator: ", ")) \(action.visibility?.rawValue ?? "?")"
        case .sessionData: return "\(at) session data \(TerminalText.safe(action.key ?? "?"))"
        case .presenterLost: return "\(at) presenter \(TerminalText.safe(action.presenter ?? "?")) lost"
        }
    }

    /// Ctrl-C and SIGTERM during --loop: the round under way finishes, then the replay stops.
    private static func interruptions(raising flag: Locked<Bool>) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { flag.update { $0 = true } }
            source.resume()
            return source
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
