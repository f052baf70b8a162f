import FlowCore
import FlowSpec

/// What an exploration found: how much it explored, and every defect, worst first.
public struct Exploration: Sendable {
    /// The flow file explored.
    public let file: String
    /// The states reached, and the inputs tried.
    public let stateCount: Int
    public let transitionCount: Int
    /// Whether no bound stopped the exploration: every input was tried in every state reached, but those the
    /// reduction let be (``reducedCount``).
    public let isComplete: Bool
    /// The states not tried further because each of their flows showed the same in a state tried (``FlowView``).
    public let reducedCount: Int
    /// The bounds it ran with.
    public let bounds: ExplorationBounds
    /// What it found, errors first, then by place in the file.
    public let findings: [Finding]
    /// The explored graph, for `--format dot`: each state's screens as a user sees them, and each input between
    /// two different states.
    public let graph: ExploredGraph
    /// For each handler the exploration ran (`Flow.step`), a shortest path of inputs that runs it, and every
    /// handler that path runs on the way: what `--write-journeys` covers the handlers with.
    public let coverage: [(handler: String, path: [ExplorationInput], runs: Set<String>)]
    /// Every handler the exploration ran (`Flow.step`), those the session's start runs included.
    public let reachedHandlers: Set<String>

    init(explorer: Explorer, start: Transition) {
        file = explorer.specification.file
        stateCount = explorer.states.count
        transitionCount = explorer.transitions.count
        isComplete = !explorer.bounded
        reducedCount = explorer.reduced.count
        bounds = explorer.bounds
        findings = Analysis(explorer: explorer, start: start).findings().sorted {
            ($0.severity == .error ? 0 : 1, $0.location?.line ?? 0, $0.location?.column ?? 0, $0.message)
                < ($1.severity == .error ? 0 : 1, $1.location?.line ?? 0, $1.location?.column ?? 0, $1.message)
        }
        graph = ExploredGraph(explorer)
        (coverage, reachedHandlers) = Self.coverage(explorer, start: start)
    }

    private static func coverage(
        _ explorer: Explorer,
        start: Transition
    ) -> ([(handler: String, path: [ExplorationInput], runs: Set<String>)], Set<String>) {
        let spec = explorer.specification
        let declared = { (handled: Transition.Handled) in
            spec.flow(named: handled.flow)?.handler(for: handled.step) != nil
        }
        let name = { (handled: Transition.Handled) in "\(handled.flow).\(handled.step)" }
        var result: [(handler: String, path: [ExplorationInput], runs: Set<String>)] = []
        var seen = Set(start.handled.filter(declared).map(name))
        // Breadth first: the first transition that runs a handler ends a shortest path to it.
        for transition in explorer.transitions {
            for handled in transition.handled where declared(handled) && seen.insert(name(handled)).inserted {
                var runs = Set(start.handled.filter(declared).map(name))
                runs.formUnion(transition.handled.filter(declared).map(name))
                var state = transition.from
                while let reaching = explorer.reachedBy[state] {
                    runs.formUnion(explorer.transitions[reaching].handled.filter(declared).map(name))
                    state = explorer.transitions[reaching].from
                }
                result.append((name(handled), explorer.path(to: transition.from) + [transition.input], runs))
            }
        }
        return (result, seen)
    }

    /// The errors (with `strict`, the warnings too): what makes `flowd check --explore` fail.
    public func failures(strict: Bool) -> [Finding] {
        findings.filter { strict || $0.severity == .error }
    }
}

/// The explored graph: states and the inputs that change them.
public struct ExploredGraph: Sendable {
    /// Each state: what a user sees (the visible screens, by name) and how many inputs from the start it is.
    public let states: [(label: String, depth: Int)]
    /// Each input that leads from a state to another.
    public let edges: [(from: Int, to: Int, input: ExplorationInput)]

    init(_ explorer: Explorer) {
        states = zip(explorer.states, explorer.depths).map { (Self.label(of: $0), $1) }
        edges = explorer.transitions.compactMap { transition in
            guard let to = transition.to, to != transition.from else { return nil }
            return (transition.from, to, transition.input)
        }
    }
}
