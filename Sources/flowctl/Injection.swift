import ArgumentParser
import FlowBus
import FlowInspector
import FlowWire
import Foundation

/// What `emit` and `deeplink` share: where the step goes, as whom, and how its fate is told.
struct InjectionOptions: ParsableArguments {
    @Option(help: "The session (default: flowd's only session).")
    var session: String?

    @Option(name: .customLong("as"), help: "The stepper to emit as: steps bound to its contributions pass.")
    var asStepper: String?

    /// The stepper emitted as: `--as`, else `flowctl`.
    var stepper: String { asStepper ?? "flowctl" }

    /// Whether `--as` was given.
    var stepperGiven: Bool { asStepper != nil }

    @Flag(help: "Print the fate as one JSON object.")
    var json = false

    func validate() throws {
        guard !stepper.isEmpty, !stepper.contains("/") else {
            throw ValidationError("--as needs a stepper name, not '\(stepper)'")
        }
    }

    /// Sends what `send` sends as the stepper (`times` times, at `rate` per second when given, else each once the
    /// one before has its fate), prints the fates, and exits 2 when one was dropped. When `step` is dropped for
    /// want of a bound stepper, the steppers and screens that may emit it are named.
    func inject(
        _ bus: BusOptions,
        step: String? = nil,
        screen: String? = nil,
        times: Int = 1,
        rate: Double? = nil,
        _ send: (InspectorClient, String) async throws -> Fate
    ) async throws {
        var options = bus.clientOptions
        // A routing id of its own: several flowctl may emit as the same stepper at once.
        let started = Int(Date().timeIntervalSince1970 * 1000)
        options.id = bus.id ?? "flowctl/\(stepper)/\(ProcessInfo.processInfo.processIdentifier)-\(started)"
        let inspector: InspectorClient
        try bus.refuseWithoutPermission()
        do {
            inspector = try await InspectorClient.connect(name: stepper, session: session, options: options)
        } catch  where error.code == .unreachable {
            bus.sayUnreachable(error, at: options.endpoints)
            throw ExitCode(69)
        } catch {
            printError("flowctl: \(error.message)")
            throw ExitCode(1)
        }
        let resolved: String
        do {
            resolved = try await bus.session(session, inspector)
        } catch {
            // BYE before exiting: flowd forgets this connection at once rather than after its silence.
            await inspector.close()
            throw error
        }
        let session = resolved
        var fates: [Fate] = []
        let clock = ContinuousClock()
        let firstSent = clock.now
        for index in 0..<times {
            if let rate, index > 0 {
                try await Task.sleep(until: firstSent + .milliseconds(Int64(Double(index) * 1000 / rate)), clock: clock)
            }
            let fate: Fate
            do {
                fate = try await send(inspector, session)
            } catch let error as FlowBusError {
                await inspector.close()
                printError("flowctl: \(error.code == .invalidOptions ? "" : "flowd refused it: ")\(error.message)")
                throw ExitCode(1)
            }
            fates.append(fate)
            if times > 1 {
                if json {
                    try printJSON(FateReport(fate))
                } else {
                    print("\(index + 1): \(fate.isAccepted ? "accepted" : "dropped (\(fate.drop?.reason ?? "?"))")")
                }
            }
        }
        let tree = try? await inspector.query("tree", session: session, timeout: .milliseconds(bus.timeout))
        let last = fates.last
        var emitters: [String]?
        if let step, let last, last.drop?.reason == "unboundStepper" {
            emitters = await Self.emitters(of: step, in: session, inspector, timeout: bus.timeout)
        }
        await inspector.close()
        if times > 1 {
            let dropped = fates.filter { !$0.isAccepted }
            let reasons = Dictionary(grouping: dropped, by: { $0.drop?.reason ?? "?" }).map {
                "\($0.key) \($0.value.count)"
            }
            printError(
                "emitted \(times): \(fates.count - dropped.count) accepted, \(dropped.count) dropped\(reasons.isEmpty ? "" : " (\(reasons.sorted().joined(separator: ", ")))")"
            )
        } else if let last {
            if json {
                var report = FateReport(last)
                report.emitters = emitters
                try printJSON(report)
            } else {
                print(describe(last, flows: tree.flatMap { try? SessionTree($0) }))
            }
        }
        if let emitters, !json {
            if let screen {
                print("  sent as screen \(TerminalText.safe(screen))")
            } else if !stepperGiven {
                print("  sent as stepper \(stepper) (emit's default; --as or --from sends as another)")
            }
            print(
                emitters.first?.hasPrefix("no ") == true
                    ? "  \(emitters[0])" : "  who may emit it now: \(emitters.joined(separator: ", "))"
            )
        }
        if fates.contains(where: { !$0.isAccepted }) {
            throw ExitCode(2)
        }
    }

    /// Who may emit `step` in `session` now (from the `steps` query): `stepper app (--as app)`, `screen p3
    /// OnboardingIntro (--from p3)`.
    static func emitters(
        of step: String,
        in session: String,
        _ inspector: InspectorClient,
        timeout: Int
    ) async -> [String] {
        guard let reply = try? await inspector.query("steps", session: session, timeout: .milliseconds(timeout)),
            let report = try? FlowJSON.decode(StepsReport.self, from: reply)
        else { return [] }
        let emitters: [String] = report.sources.compactMap { source in
            guard let candidate = source.steps.first(where: { $0.step == step }) else { return nil }
            let passes =
                candidate.passes == true ? "" : " (would be dropped now: \(candidate.reason ?? "waits for a guard"))"
            if let stepper = source.stepper {
                return "stepper \(TerminalText.safe(stepper)) (--as \(TerminalText.safe(stepper)))\(passes)"
            }
            let id = source.presentable?.rawValue ?? 0
            return "screen p\(id) \(TerminalText.safe(source.name ?? "?")) (--from p\(id))\(passes)"
        }
        guard emitters.isEmpty else { return emitters }
        // Nothing running handles it: say which flows would, from the flow file.
        guard let flowsReply = try? await inspector.query("flows", timeout: .milliseconds(timeout)),
            let flows = try? FlowJSON.decode(FlowsReport.self, from: flowsReply)
        else { return [] }
        let handlers = flows.flows.filter { $0.handlers.contains { $0.step == step } }.map(\.name)
        return [
            handlers.isEmpty
                ? "no flow of the flow file handles \(TerminalText.safe(step))"
                : "no stepper or screen may emit it now: \(handlers.map(TerminalText.safe).joined(separator: ", ")) \(handlers.count == 1 ? "handles it and is not running (open it first)" : "handle it and none runs (open one first)")"
        ]
    }

    private func describe(_ fate: Fate, flows tree: SessionTree?) -> String {
        switch fate {
        case .accepted(let flows):
            let named = flows.map { id in
                tree?.flows.first { $0.id == id }.map { "\(id) \($0.name)" } ?? "\(id)"
            }
            return "accepted by " + named.joined(separator: ", ")
        case .dropped(let drop):
            var text = "dropped (\(drop.reason)): \(drop.explanation)"
            if let remedy = drop.remedy {
                text += "\n  would pass: \(remedy)"
            }
            return text
        }
    }
}

/// A fate as `--json` prints it: the fields of a STEP_ACK's fate.
struct FateReport: Encodable {
    let accepted: Bool
    let flows: [Int]
    let reason: String?
    let explanation: String?
    let remedy: String?
    let presentable: Int?
    let flow: Int?
    /// After an `unboundStepper` drop: who may emit the step now (or why no one may).
    var emitters: [String]?

    init(_ fate: Fate) {
        accepted = fate.isAccepted
        if case .accepted(let ids) = fate {
            flows = ids.map { Int($0.rawValue) }
        } else {
            flows = []
        }
        let drop = fate.drop
        reason = drop?.reason.rawValue
        explanation = drop?.explanation
        remedy = drop?.remedy
        presentable = drop?.presentable.map { Int($0.rawValue) }
        flow = drop?.flow.map { Int($0.rawValue) }
    }
}
