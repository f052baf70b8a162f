import FlowCore
import FlowSpec

extension Journey {
    /// Runs the journey in process, against a new session of `specification` in an engine of its own: the first
    /// move whose expectations do not hold (or that cannot be made: a screen not on screen), or `nil`.
    public func run(on specification: FlowSpecification) -> JourneyFailure? {
        var driver: SessionDriver
        do {
            driver = try SessionDriver(specification)
            _ = try driver.apply(.reportShown)
        } catch {
            return JourneyFailure(file: file, line: 0, move: 0, input: "the session's start", diff: ["+ \(error)"])
        }
        for (index, move) in moves.enumerated() {
            let outcome: (fate: String?, view: SessionView)
            do {
                outcome = try Self.make(move.input, in: &driver)
            } catch {
                return JourneyFailure(
                    file: file,
                    line: move.line,
                    move: index + 1,
                    input: move.input.description,
                    diff: ["- the move can be made", "+ \(error.message)"]
                )
            }
            let diff = move.expect.differences(fate: outcome.fate, view: outcome.view)
            if !diff.isEmpty {
                return JourneyFailure(
                    file: file,
                    line: move.line,
                    move: index + 1,
                    input: move.input.description,
                    diff: diff
                )
            }
        }
        return nil
    }

    /// A journey of `inputs` whose expectations are what they do now: each step's fate, the visible screens and the
    /// running flows.
    public static func recording(
        _ inputs: [ExplorationInput],
        named name: String,
        file: String,
        flows: String?,
        on specification: FlowSpecification
    ) throws(FlowCoreError) -> Journey {
        var driver = try SessionDriver(specification)
        _ = try driver.apply(.reportShown)
        var moves: [Move] = []
        for input in inputs {
            let (fate, view) = try make(input, in: &driver)
            moves.append(Move(input, expect: Expectation(fate: fate, visible: view.visible, flows: view.flows)))
        }
        return Journey(name: name, file: file, flows: flows, moves: moves)
    }

    /// Makes one move, then the presenters report what they show: the step's fate (if the move is a step or a deep
    /// link decided at once) and what the session shows.
    private static func make(
        _ input: ExplorationInput,
        in driver: inout SessionDriver
    ) throws(FlowCoreError) -> (fate: String?, view: SessionView) {
        // A step the flow file does not declare is refused before anything (flowd answers ERROR unknownStep).
        switch input {
        case .step(let step, _), .deepLink(let step):
            if driver.specification.step(named: step.name) == nil, let inspection = driver.inspection {
                return ("unknownStep", SessionView(inspection))
            }
        default:
            break
        }
        let (_, fate) = try driver.apply(input)
        _ = try driver.apply(.reportShown)
        guard let inspection = driver.inspection else {
            throw FlowCoreError(.unknownSession, "the session ended")
        }
        let said: String? =
            switch fate {
            case .accepted: "accepted"
            case .dropped(let reason): reason.code
            case nil: nil
            }
        return (said, SessionView(inspection))
    }
}
