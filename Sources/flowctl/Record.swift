import ArgumentParser
import Dispatch
import FlowBus
import FlowInspector
import FlowWire
import Foundation

/// `flowctl record FILE`: the inputs of the bus, with their timing, to a file.
struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record the bus — steps, deep links, visibility reports, session data — with their timing.",
        discussion: """
            The file has a header line, then one JSON object per input (flowctl's documentation, "Recordings", has the format). \
            flowd's engine is deterministic, so replaying the inputs rebuilds the same trees: start recording \
            before the session's processes start (or end the session first) to capture it whole. Guards are not \
            recorded; run them when replaying. Stops on Ctrl-C (or SIGTERM), --count or --duration.

            Examples:
              flowctl record bug-1234.flowrec --session kiosk-7
              flowctl replay --offline bug-1234.flowrec --flows deploy/flows/movies.yaml
            """
    )

    @Argument(help: "The file to write.")
    var file: String

    @Option(
        help: "Only this session (default: every session; flowctl exits 1 when flowd does not have it, unless --wait)."
    )
    var session: String?

    @Flag(help: "With --session: record even if flowd does not have the session yet (it may come).")
    var wait = false

    @Option(help: "Stop after this many inputs.")
    var count: Int?

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @Flag(help: "Overwrite the file if it exists.")
    var force = false

    @OptionGroup var bus: BusOptions

    func validate() throws {
        if let count, count <= 0 {
            throw ValidationError("--count must be positive, not \(count)")
        }
        if let duration, !(duration > 0) {
            throw ValidationError("--duration must be a positive number of seconds, not \(duration)")
        }
        if !force, FileManager.default.fileExists(atPath: file) {
            throw ValidationError("\(file) exists; choose another file or pass --force")
        }
    }

    func run() async throws {
        if let session, !wait {
            try await bus.requireSession(session)
        }
        let stream: InspectionStream
        do {
            stream = try await InspectionStream.open(session: session, commands: true, options: bus.clientOptions)
        } catch {
            printError("flowctl: \(error.code == .unreachable ? "flowd is not answering: " : "")\(error.message)")
            throw ExitCode(error.code == .unreachable ? 69 : 1)
        }
        guard FileManager.default.createFile(atPath: file, contents: nil),
            let output = FileHandle(forWritingAtPath: file)
        else {
            stream.close()
            printError("flowctl: cannot write \(file)")
            throw ExitCode(1)
        }
        let inspector = try await bus.inspector()
        let version = inspector.daemonVersion
        // Who shows the screens already on screen: a screen's step names its presenter in the recording.
        var recorder = Recorder(startedAt: Int64(Date().timeIntervalSince1970 * 1000))
        var running: [String] = session.map { [$0] } ?? []
        if session == nil, let sessions = try? await bus.allPages(inspector, "sessions").arrayValue {
            running = sessions.compactMap { $0.objectValue?["session"]?.stringValue }
        }
        var joined: [String] = []
        for name in running {
            if let reply = try? await inspector.query("tree", session: name, timeout: .milliseconds(bus.timeout)),
                let tree = try? SessionTree(reply)
            {
                recorder.learn(from: tree)
                joined.append(name)
            }
        }
        if !joined.isEmpty {
            // A replay starts each session anew: what happened before the recording is not in it.
            printError(
                "flowctl: \(joined.count == 1 ? "session \(joined[0]) is" : "\(joined.count) sessions are") already running: the recording starts in the middle, and a replay (which starts each session anew) will differ from it; to record a session from its start, start flowctl record --wait before the session"
            )
        }
        await inspector.close()
        let startedAt = recorder.startedAt
        let header = Recording.Header(session: session, startedAt: startedAt, flowd: version)
        output.write(Data((Recording.line(header) + "\n").utf8))
        let stop = stopOnSignals(stream)
        let timer = duration.map { seconds in
            Task {
                try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                stream.close()
            }
        }
        printError("recording \(session.map { "session \($0)" } ?? "every session") to \(file); Ctrl-C to stop")
        var recorded = 0
        var lost = 0
        var skipped = 0
        for await inspected in stream.items {
            switch inspected {
            case .event(let event, let header) where event.inspectionKind == .commands:
                recorder.learn(from: event, session: header.session ?? "-")
            case .event(let event, let header):
                for action in recorder.take(event, sentAt: header.sentAt) {
                    output.write(Data((Recording.line(action) + "\n").utf8))
                    recorded += 1
                }
                if let count, recorded >= count {
                    stream.close()
                }
            case .connectionLost:
                lost += 1
                printError("flowctl: lost the connection to flowd; inputs until it is back are missed")
            case .connectionRestored:
                printError("flowctl: connected to flowd again")
            case .skipped(let count):
                skipped += count
                printError("flowctl: skipped \(count) events: writing fell behind; the recording has a gap")
            }
        }
        for action in recorder.flush() {
            output.write(Data((Recording.line(action) + "\n").utf8))
            recorded += 1
        }
        timer?.cancel()
        for source in stop {
            source.cancel()
        }
        try output.close()
        printError("recorded \(recorded) input\(recorded == 1 ? "" : "s") to \(file)")
        if recorder.leftOut > 0 {
            printError(
                "flowctl: \(recorder.leftOut) step\(recorder.leftOut == 1 ? "" : "s") from screens whose presenter flowctl could not tell \(recorder.leftOut == 1 ? "was" : "were") left out"
            )
        }
        if skipped > 0 {
            printError("flowctl: \(skipped) events were skipped (writing fell behind): the recording has gaps")
            throw ExitCode(1)
        }
        if lost > 0 {
            printError("flowctl: the connection dropped \(lost) time\(lost == 1 ? "" : "s"): the recording has gaps")
            throw ExitCode(1)
        }
    }

    /// Ctrl-C and SIGTERM end the recording cleanly (the file is complete up to then).
    private func stopOnSignals(_ stream: InspectionStream) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stream.close() }
            source.resume()
            return source
        }
    }
}
