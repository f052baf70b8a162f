import FlowBusTesting
import FlowCore
import FlowSpec
import Foundation
import Testing

/// Parses a flow file written in a test, failing the test with the diagnostics if it has problems.
func specification(
    _ yaml: String,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws -> FlowSpecification {
    do {
        return try FlowSpecification.parse(yaml, file: "test.yaml")
    } catch {
        Issue.record("unexpected problems:\n\(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// The diagnostics of a flow file that must have problems.
func problems(_ yaml: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> [Diagnostic] {
    do {
        _ = try FlowSpecification.parse(yaml, file: "test.yaml")
        Issue.record("expected problems, the file was accepted", sourceLocation: sourceLocation)
        return []
    } catch {
        return error.diagnostics
    }
}

/// A running session of a specification, with helpers to drive it like presenters and steppers would.
struct Driver {
    var engine: FlowEngine
    var log = Effects()
    let session: SessionID = "test"

    init(_ spec: FlowSpecification) throws {
        engine = FlowEngine(registry: spec.registry)
        log.append(try spec.startSession(session, in: &engine))
    }

    /// Emits a step from a named stepper and returns its fate.
    @discardableResult
    mutating func emit(_ step: Step, from stepper: String) -> StepFate? {
        let (token, effects) = engine.receive(step, from: .stepper(stepper), session: session)
        log.append(effects)
        return effects.fate(of: token)
    }

    /// Emits a step as a screen (found by name among what is on screen) after reporting it visible.
    @discardableResult
    mutating func tap(_ step: Step, on screen: String) throws -> StepFate? {
        let id = try #require(presentable(named: screen), "\(screen) is not on screen")
        log.append(try engine.report(.visible, of: [id], session: session))
        let (token, effects) = engine.receive(step, from: .presentable(id), session: session)
        log.append(effects)
        return effects.fate(of: token)
    }

    /// The id of the last presentable on screen with this name.
    func presentable(named name: String) -> PresentableID? {
        engine.screens(of: session)?.nodes.values.filter { $0.description.name == name }.map(\.id).max()
    }

    /// What the main presenter's user sees, by name.
    var visibleNames: [String] {
        guard let screens = engine.screens(of: session) else { return [] }
        return screens.visiblePresentables(of: .main).compactMap { screens[$0]?.description.name }
    }

    /// The running flows, by name.
    var flowNames: [String] {
        engine.inspect(session)?.flows.map(\.name) ?? []
    }

    /// Every command sent so far, as `operation name`.
    var commands: [String] {
        log.batches.flatMap(\.commands).map { command in
            let placed = command.placed.map(\.name).joined(separator: ",")
            return placed.isEmpty ? command.operation : "\(command.operation) \(placed)"
        }
    }
}
