import ArgumentParser
import FlowBus
import FlowInspector
import Foundation

/// `flowctl stats`: rates, acceptance and latency over a window.
struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show rates per message type, stepper and session, the acceptance ratio and command latency.",
        discussion: """
            Each report covers one window (--interval seconds) and is refreshed until Ctrl-C; --once prints a \
            single report and exits. Latency is the time from a step's sending (the sender's clock) to flowd's \
            decision, when its commands are published; message rates are flowd's, for all sessions.

            Examples:
              flowctl stats
              flowctl stats --session kiosk-7 --interval 10
              flowctl stats --once --json | jq .acceptance
            """
    )

    @Option(help: "Only this session's steps (flowctl exits 1 when flowd does not have it).")
    var session: String?

    @Option(help: "The window, in seconds.")
    var interval = 2.0

    @Flag(help: "One report, then exit.")
    var once = false

    @Flag(help: "Each report as one JSON object.")
    var json = false

    @OptionGroup var bus: BusOptions

    func validate() throws {
        guard interval >= 0.1 else {
            throw ValidationError("--interval must be at least 0.1 seconds, not \(interval)")
        }
    }

    func run() async throws {
        let inspector = try await bus.inspector()
        if let session {
            try await bus.requireSession(session, inspector)
        }
        let stream: InspectionStream
        do {
            stream = try await InspectionStream.open(session: session, commands: true, options: bus.clientOptions)
        } catch {
            printError("flowctl: \(error.message)")
            throw ExitCode(error.code == .unreachable ? 69 : 1)
        }
        let window = Locked(StatsWindow())
        let collecting = Task {
            for await inspected in stream.items {
                switch inspected {
                case .event(let event, let header): window.update { $0.add(WatchedItem(event, header: header)) }
                case .connectionLost, .connectionRestored, .skipped: break
                }
            }
        }
        defer {
            stream.close()
            collecting.cancel()
        }
        let clock = ContinuousClock()
        let refresh = isatty(STDOUT_FILENO) == 1 && !json && !once
        while true {
            let started = clock.now
            let before = try await bus.query(inspector, "stats")
            try await Task.sleep(for: .milliseconds(Int(interval * 1000)))
            let after = try await bus.query(inspector, "stats")
            let elapsed = clock.now - started
            let counted = window.update { window in
                defer { window = StatsWindow() }
                return window
            }
            let report = counted.report(
                seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                countersBefore: before,
                countersAfter: after
            )
            if json {
                try printJSON(report)
            } else {
                let heading =
                    "flowd at \(bus.clientOptions.endpoints.control)\(session.map { ", session \($0)" } ?? "")"
                printLine((refresh ? "\u{1B}[H\u{1B}[2J" : "") + ([heading] + report.lines).joined(separator: "\n"))
                if !refresh && !once {
                    printLine("")
                }
            }
            if once {
                break
            }
        }
        await inspector.close()
    }
}

/// A value shared between tasks, behind a lock.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) {
        self.value = value
    }

    @discardableResult
    func update<Result>(_ change: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return change(&value)
    }
}
