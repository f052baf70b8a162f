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
    var stepper = "flowctl"

    @Flag(help: "Print the fate as one JSON object.")
    var json = false

    func validate() throws {
        guard !stepper.isEmpty, !stepper.contains("/") else {
            throw ValidationError("--as needs a stepper name, not '\(stepper)'")
        }
    }

    /// Sends what `send` sends as the stepper, prints its fate, and exits 2 when it was dropped.
    func inject(
        _ bus: BusOptions,
        _ send: (InspectorClient, String) async throws -> Fate
    ) async throws {
        var options = bus.clientOptions
        // A routing id of its own: several flowctl may emit as the same stepper at once.
        let started = Int(Date().timeIntervalSince1970 * 1000)
        options.id = bus.id ?? "flowctl/\(stepper)/\(ProcessInfo.processInfo.processIdentifier)-\(started)"
        let inspector: InspectorClient
        try bus.refuseWithoutPermission()
        do {
            inspector = try await InspectorClient.connect(name: stepper, options: options)
        } catch let error as FlowBusError where error.code == .unreachable {
            printError("flowctl: flowd is not answering at \(options.endpoints.control) (waited \(bus.timeout) ms)")
            throw ExitCode(69)
        } catch let error as FlowBusError {
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
        let fate: Fate
        do {
            fate = try await send(inspector, session)
        } catch let error as FlowBusError {
            await inspector.close()
            printError("flowctl: flowd refused it: \(error.message)")
            throw ExitCode(1)
        }
        let flows = try? await inspector.query("tree", session: session, timeout: .milliseconds(bus.timeout))
        await inspector.close()
        if json {
            try printJSON(FateReport(fate))
        } else {
            print(describe(fate, flows: flows.flatMap { try? SessionTree($0) }))
        }
        if !fate.isAccepted {
            throw ExitCode(2)
        }
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

    init(_ fate: Fate) {
        accepted = fate.isAccepted
        if case .accepted(let ids) = fate {
            flows = ids.map { Int($0.rawValue) }
        } else {
            flows = []
        }
        let drop = fate.drop
        reason = drop?.reason
        explanation = drop?.explanation
        remedy = drop?.remedy
        presentable = drop?.presentable.map { Int($0.rawValue) }
        flow = drop?.flow.map { Int($0.rawValue) }
    }
}
