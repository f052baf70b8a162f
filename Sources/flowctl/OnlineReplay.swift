import FlowBus
import FlowInspector
import Foundation

/// Replays a recording into a running flowd: each recorded stepper and presenter connects under its name, and
/// each input is sent once the one before it has been handled (its fate came back, or flowd published that it
/// took the report), so flowd sees the inputs in the recorded order.
final class OnlineReplay {
    struct Counts {
        var accepted = 0
        var dropped = 0
        var refused: [String] = []
        /// Steps whose fate is not the recorded one.
        var divergences: [String] = []
    }

    private let options: ClientOptions
    private let timeout: Duration
    private let inspector: InspectorClient
    private let echoes: InspectionStream
    private let seen = Locked([String: Int]())
    private var pumping: Task<Void, Never>?
    private var steppers: [String: StepperClient] = [:]
    private var presenters: [String: PresenterClient] = [:]
    private(set) var counts = Counts()

    /// A replay through `inspector`, confirming inputs on `echoes` (flowd's inspection stream).
    init(options: ClientOptions, timeout: Duration, inspector: InspectorClient, echoes: InspectionStream) {
        self.options = options
        self.timeout = timeout
        self.inspector = inspector
        self.echoes = echoes
    }

    /// Starts counting what flowd publishes; call it before the first ``perform(_:in:)``.
    func start() {
        let echoes = echoes
        let seen = seen
        pumping = Task { await OnlineReplay.tally(echoes, into: seen) }
    }

    /// Counts what flowd publishes, by kind, session and peer name.
    private static func tally(_ echoes: InspectionStream, into seen: Locked<[String: Int]>) async {
        for await item in echoes.items {
            guard case .event(let event, _) = item else { continue }
            let fields = event.fields
            let name = fields["presenter"]?.stringValue ?? fields["name"]?.stringValue ?? ""
            // One update for both counts: a report's refusal is counted before its echo is seen.
            seen.update { seen in
                if event.kind == "visibilityReported", fields["refused"] != nil {
                    seen[echo("visibilityRefused", event.session ?? "-", name), default: 0] += 1
                }
                seen[echo(event.kind, event.session ?? "-", name), default: 0] += 1
            }
        }
    }

    /// Sends one input to `session` and waits until flowd has handled it.
    func perform(_ action: RecordedAction, in session: String) async throws {
        switch action.kind {
        case .step:
            guard let step = action.step else { return }
            let fate: Fate
            do {
                if let presentable = action.presentable, let presenter = action.presenter {
                    fate = try await presenterClient(presenter, session).emit(step, from: presentable)
                } else {
                    fate = try await stepperClient(action.stepper ?? "flowctl", session).emit(step)
                }
            } catch let error as FlowBusError where error.daemonCode == "invalidParameters" {
                // The client throws it (a program's mistake); on the wire, and in the recording, it is a drop.
                fate = .dropped(Drop(reason: "invalidParameters", explanation: error.message))
            }
            count(fate)
            if let recorded = action.fate, recorded != .refused,
                (recorded == .accepted) != fate.isAccepted
                    || (!fate.isAccepted && fate.drop?.reason.rawValue != action.reason)
            {
                counts.divergences.append(
                    "step \(step.name) at \(action.at) ms in \(session): recorded \(recorded.rawValue)\(action.reason.map { " (\($0))" } ?? ""), replayed \(fate.isAccepted ? "accepted" : "dropped (\(fate.drop?.reason ?? "?"))")"
                )
            }
        case .deepLink:
            count(try await inspector.deepLink(action.path ?? [], session: session))
        case .visibility:
            guard let presenter = action.presenter else { return }
            let client = try await presenterClient(presenter, session)
            let key = Self.echo("visibilityReported", session, presenter)
            let refusedKey = Self.echo("visibilityRefused", session, presenter)
            let (before, refusedBefore) = seen.update { ($0[key, default: 0], $0[refusedKey, default: 0]) }
            try client.report(action.visibility ?? .unknown, action.presentables ?? [])
            try await awaitEcho(key, above: before, what: "the visibility report of \(presenter)")
            if seen.update({ $0[refusedKey, default: 0] }) > refusedBefore {
                counts.refused.append(
                    "visibility at \(action.at) ms: flowd refused \(presenter)'s report of \((action.presentables ?? []).map { "p\($0.rawValue)" }.joined(separator: ", "))"
                )
            }
        case .sessionData:
            try await inspector.setSessionData(action.key ?? "", to: action.value, session: session, timeout: timeout)
        case .presenterLost:
            guard let presenter = action.presenter,
                let client = presenters.removeValue(forKey: "\(session)/\(presenter)")
            else { return }
            let key = Self.echo("unregistered", session, presenter)
            let before = seen.update { $0[key, default: 0] }
            await client.close()
            try await awaitEcho(key, above: before, what: "presenter \(presenter) leaving")
        }
    }

    /// Closes every client the replay opened.
    func close() async {
        for client in steppers.values {
            await client.close()
        }
        for client in presenters.values {
            await client.close()
        }
        echoes.close()
        pumping?.cancel()
    }

    private func count(_ fate: Fate) {
        if fate.isAccepted { counts.accepted += 1 } else { counts.dropped += 1 }
    }

    private func stepperClient(_ name: String, _ session: String) async throws -> StepperClient {
        if let client = steppers["\(session)/\(name)"] {
            return client
        }
        let client = try await StepperClient.connect(session: session, name: name, options: options)
        steppers["\(session)/\(name)"] = client
        return client
    }

    private func presenterClient(_ name: String, _ session: String) async throws -> PresenterClient {
        if let client = presenters["\(session)/\(name)"] {
            return client
        }
        let client = try await PresenterClient.connect(session: session, name: name, options: options)
        // The replay reports what the recording says; the commands it receives are only read.
        Task {
            for await _ in client.updates {}
        }
        presenters["\(session)/\(name)"] = client
        return client
    }

    private func awaitEcho(_ key: String, above count: Int, what: String) async throws {
        let deadline = ContinuousClock.now + timeout
        while seen.update({ $0[key, default: 0] }) <= count {
            guard ContinuousClock.now < deadline else {
                throw FlowBusError(.timedOut, "flowd did not confirm \(what) within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    private static func echo(_ kind: String, _ session: String, _ name: String) -> String {
        "\(kind)/\(session)/\(name)"
    }
}
