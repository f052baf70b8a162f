import FlowCore
import FlowSpec

/// Reads the findings off an exploration's states and transitions.
struct Analysis {
    let explorer: Explorer
    let start: Transition
    private var spec: FlowSpecification { explorer.specification }
    /// What is not reached may still be past the bound: then it is a warning, not an error.
    private var unreachedSeverity: Finding.Severity { explorer.bounded ? .warning : .error }

    init(explorer: Explorer, start: Transition) {
        self.explorer = explorer
        self.start = start
    }

    func findings() -> [Finding] {
        unreachable() + alwaysDropped() + droppedForwards() + rejectedCommands() + orphanedUI() + deadEnds()
            + undismissableModals() + unboundedStacks()
    }

    /// A path to the state a transition was tried in, then the transition's input.
    /// (The start, `from` -1, has no path: it is where every path begins.)
    private func path(through transition: Transition) -> [ExplorationInput] {
        transition.from < 0 ? [] : explorer.path(to: transition.from) + [transition.input]
    }

    private func handler(_ handled: Transition.Handled?) -> StepHandler? {
        handled.flatMap { spec.flow(named: $0.flow)?.handler(for: $0.step) }
    }

    private var allTransitions: [Transition] {
        [start] + explorer.transitions
    }

    // MARK: Unreachable flows and handlers

    private func unreachable() -> [Finding] {
        var handled: Set<Transition.Handled> = []
        var started: Set<String> = [spec.session.rootFlow]
        for transition in allTransitions {
            handled.formUnion(transition.handled)
            started.formUnion(transition.started)
        }
        let bound = explorer.bounded ? " within the bound explored (raise --depth or --states)" : ""
        var findings: [Finding] = []
        for flow in spec.flows {
            guard started.contains(flow.name) else {
                findings.append(
                    Finding(
                        .unreachableFlow,
                        unreachedSeverity,
                        "flow \(flow.name) is never started: no input leads to an action `start: \(flow.name)`\(bound)",
                        at: flow.location
                    )
                )
                continue
            }
            for step in flow.handlers where !handled.contains(Transition.Handled(flow: flow.name, step: step.step)) {
                let screens = step.actions.flatMap(\.presentations).filter { !$0.isFlow }.map(\.target)
                let shows = screens.isEmpty ? "" : " (it shows \(screens.joined(separator: ", ")))"
                findings.append(
                    Finding(
                        .unreachableHandler,
                        unreachedSeverity,
                        "\(flow.name)'s handler of \(step.step) never runs\(shows): no stepper, screen, deep link or other flow brings \(step.step) to \(flow.name) while it runs\(bound)",
                        at: step.location
                    )
                )
            }
        }
        return findings
    }

    // MARK: Steps dropped

    private func alwaysDropped() -> [Finding] {
        var tried: [String: (first: Transition, reasons: [String: Int])] = [:]
        // Accepted anywhere, from whatever sent it (a flow's one-step stepper included): not always dropped.
        var accepted = start.acceptedSteps
        for transition in explorer.transitions {
            accepted.formUnion(transition.acceptedSteps)
            let name: String
            switch transition.input {
            case .step(let step, _): name = step.name
            case .deepLink(let step): name = step.name
            default: continue
            }
            guard let fate = transition.fate else {
                if transition.input.isStep {
                    accepted.insert(name)  // Waits for a guard's answer: not always dropped.
                }
                continue  // A deep link waiting for the session to be ready: not decided yet.
            }
            switch fate {
            case .accepted:
                accepted.insert(name)
            case .dropped(let reason):
                var entry = tried[name] ?? (transition, [:])
                entry.reasons[reason.code, default: 0] += 1
                tried[name] = entry
            }
        }
        return spec.steps.compactMap { declaration in
            guard !accepted.contains(declaration.name), let (first, reasons) = tried[declaration.name] else {
                return nil
            }
            let said = reasons.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) \($0.value)×" }
            return Finding(
                .alwaysDropped,
                unreachedSeverity,
                "step \(declaration.name) is dropped wherever it comes from (\(said.joined(separator: ", "))): no flow that runs when it can come takes it",
                at: declaration.location,
                path: path(through: first)
            )
        }
    }

    private func droppedForwards() -> [Finding] {
        var seen: Set<String> = []
        var findings: [Finding] = []
        for transition in allTransitions {
            for dropped in transition.droppedForwards {
                // The navigation that sent it: the latest whose handler ends or forwards with it (a deep link's
                // steps, which go to every flow and may pass some by, are not sent by a handler).
                guard
                    let (by, action) = dropped.after.reversed().lazy.compactMap({ navigation in
                        self.forwarding(dropped.step, in: navigation).map { (navigation, $0) }
                    }).first
                else { continue }
                let key = "\(by.flow)|\(by.step)|\(dropped.step)|\(dropped.reason)"
                guard seen.insert(key).inserted else { continue }
                let flow = by.flow
                let remedy =
                    switch dropped.reason {
                    case "unhandled":
                        "the flow it goes to does not handle it: handle \(dropped.step) there (`\(dropped.step): []` to do nothing)"
                    case "forwardedFromRoot":
                        "\(flow) is the root flow: it has no parent to forward to"
                    case "tooManySteps":
                        "one input caused too many navigations: the flows forward steps to each other in a loop"
                    default:
                        "it is dropped (\(dropped.reason))"
                    }
                findings.append(
                    Finding(
                        .droppedForward,
                        .error,
                        "\(flow)'s handler of \(by.step) sends \(dropped.step), which is dropped: \(remedy)",
                        at: action.location,
                        path: path(through: transition)
                    )
                )
            }
        }
        return findings
    }

    /// The handler, among a transition's navigations (latest first), whose actions show the screen `name` or start
    /// the flow whose root it is.
    private func placingHandler(of name: String, in transition: Transition) -> StepHandler? {
        transition.handled.reversed().lazy.compactMap { self.handler($0) }.first { handler in
            handler.actions.flatMap(\.presentations).contains { presentation in
                presentation.isFlow
                    ? spec.flow(named: presentation.target)?.root.name == name : presentation.target == name
            }
        }
    }

    /// The last handler a flow declares that ran on the way to a state (from its start when none did since).
    private func lastHandler(onTheWayTo state: Int) -> StepHandler? {
        var current = state
        while let reaching = explorer.reachedBy[current] {
            let transition = explorer.transitions[reaching]
            if let handler = declaredHandler(in: transition) {
                return handler
            }
            current = transition.from
        }
        return declaredHandler(in: start)
    }

    /// The handler of the last navigation of a transition that a flow declares (not a step it navigated to nothing).
    private func declaredHandler(in transition: Transition?) -> StepHandler? {
        transition?.handled.reversed().lazy.compactMap { self.handler($0) }.first
    }

    /// The action of a navigation's handler that ends or forwards with `step`.
    private func forwarding(_ step: String, in navigation: Transition.Handled) -> Action? {
        handler(navigation)?.actions.first { action in
            switch action.kind {
            case .end(let template), .forwardToParentFlow(let template), .forwardToCurrentFlow(let template):
                template.name == step
            default:
                false
            }
        }
    }

    private func rejectedCommands() -> [Finding] {
        var seen: Set<String> = []
        var findings: [Finding] = []
        for transition in allTransitions {
            for rejected in transition.rejectedCommands {
                let key = "\(rejected.by?.flow ?? "")|\(rejected.by?.step ?? "")|\(rejected.operation)"
                guard seen.insert(key).inserted else { continue }
                findings.append(
                    Finding(
                        .rejectedCommand,
                        .error,
                        "\(rejected.by?.flow ?? "a flow")'s handler of \(rejected.by?.step ?? "?") asks for \(rejected.operation), which does not fit the screen: \(rejected.reason)",
                        at: handler(rejected.by)?.location,
                        path: path(through: transition)
                    )
                )
            }
        }
        return findings
    }

    // MARK: Screens left behind

    private func orphanedUI() -> [Finding] {
        var seen: Set<String> = []
        var findings: [Finding] = []
        for transition in explorer.transitions {
            for (flow, orphans) in Dictionary(grouping: transition.orphaned, by: \.flow).sorted(by: { $0.key < $1.key })
            {
                let by = orphans[0].by
                guard seen.insert("\(flow)|\(by?.step ?? "")").inserted else { continue }
                let handler = handler(by)
                let end = handler?.actions.first { if case .end = $0.kind { true } else { false } }
                let screens = orphans.map { "\($0.screen) (\($0.position))" }.joined(separator: ", ")
                findings.append(
                    Finding(
                        .orphanedUI,
                        .error,
                        "when \(flow) ends, its screens stay on screen and nothing takes their steps: \(screens); dismiss them in the handler of the step \(flow) ends with, or give \(flow) `restoreParentOnEnd: true`",
                        at: end?.location ?? handler?.location ?? spec.flow(named: flow)?.location,
                        path: path(through: transition)
                    )
                )
            }
        }
        return findings
    }

    // MARK: Dead ends

    private func outgoing() -> [[Transition]] {
        var outgoing = [[Transition]](repeating: [], count: explorer.states.count)
        for transition in explorer.transitions {
            outgoing[transition.from].append(transition)
        }
        return outgoing
    }

    private func deadEnds() -> [Finding] {
        let outgoing = outgoing()
        var seen: Set<String> = []
        var findings: [Finding] = []
        for (index, transitions) in outgoing.enumerated()
        where explorer.pumped[index] == nil && explorer.depths[index] < explorer.bounds.depth {
            // Nothing a stepper or a screen sends is taken or changes anything, and nothing the user does (a tab, a
            // back gesture) leads elsewhere: the user is stuck. (Deep links and data come from outside the app.)
            // A reduced state was probed for that alone.
            let steps = transitions.filter(\.input.isStep)
            let gestures = transitions.filter(\.input.isGesture)
            if explorer.reduced[index] != nil {
                guard explorer.stuck.contains(index) else { continue }
            } else {
                guard steps.allSatisfy({ $0.to == index && $0.fate?.isAccepted != true }),
                    gestures.allSatisfy({ $0.to == index })
                else { continue }
            }
            let label = ExploredGraph.label(of: explorer.states[index])
            guard seen.insert(label).inserted else { continue }
            let location = lastHandler(onTheWayTo: index)?.location
            let inputs =
                explorer.reduced[index] == nil ? steps.map(\.input) : explorer.inputs(in: explorer.states[index])
            let sources = Set(inputs.compactMap { if case .step(_, let source) = $0 { "\(source)" } else { nil } })
            findings.append(
                Finding(
                    .deadEnd,
                    .error,
                    "a dead end\(index == 0 ? " from the session's start" : ""): showing \(label), no step from any stepper or screen is taken (\(sources.isEmpty ? "no stepper or screen can send one" : sources.sorted().joined(separator: ", ") + " send only steps that are dropped")) and nothing the user does leads elsewhere",
                    at: location,
                    path: explorer.path(to: index)
                )
            )
        }
        return findings
    }

    // MARK: Modals

    private func undismissableModals() -> [Finding] {
        let states = explorer.states
        var modals: [[String]] = []
        var signatures: Set<String> = []
        for state in states {
            let present = state.screens.filter { state.inspection.screens[$0]?.placement == .modal }.map {
                state.position(of: $0)
            }
            modals.append(present)
            signatures.formUnion(present)
        }
        // Steps, reports, answers and data: what happens without the user's own dismissal.
        var incoming = [[Int]](repeating: [], count: states.count)
        for transition in explorer.transitions {
            guard let to = transition.to else { continue }
            if case .dismiss = transition.input { continue }
            incoming[to].append(transition.from)
        }
        // A reduced state can leave a modal as the first state tried with the same view of the modal's flow can.
        var alike: [String: [Int: [Int]]] = [:]
        for (index, views) in explorer.reduced {
            let tree = states[index].inspection.screens
            for id in states[index].screens where tree[id]?.placement == .modal {
                let signature = states[index].position(of: id)
                guard let owner = tree[id]?.description.flow, let view = views[owner],
                    let tried = explorer.viewStates[view], modals[tried].contains(signature)
                else { continue }
                alike[signature, default: [:]][tried, default: []].append(index)
            }
        }
        var cut = [Bool](repeating: false, count: states.count)
        for transition in explorer.transitions where transition.to == nil {
            cut[transition.from] = true
        }
        // A state past the depth, or with inputs past the bound on states: what follows it is not known, and it is
        // taken as able to leave. A state not explored because a stack grew again is like the one it repeats.
        let unknown = { (index: Int) in
            explorer.pumped[index] == nil && (explorer.depths[index] >= explorer.bounds.depth || cut[index])
        }
        var findings: [Finding] = []
        var seenModals: Set<String> = []
        for signature in signatures.sorted(by: { ($0.count, $0) < ($1.count, $1) }) {
            var canLeave = [Bool](repeating: false, count: states.count)
            var queue: [Int] = []
            // Without it, or with what follows unknown.
            for index in states.indices where !modals[index].contains(signature) || unknown(index) {
                canLeave[index] = true
                queue.append(index)
            }
            // States a state without the modal can be reached from, by steps alone.
            let alikeStates = alike[signature] ?? [:]
            while let index = queue.popLast() {
                for from in incoming[index] + (alikeStates[index] ?? []) where !canLeave[from] {
                    canLeave[from] = true
                    queue.append(from)
                }
            }
            // A state not explored because a stack grew again is judged by the one it repeats, not by itself.
            guard let stuck = states.indices.first(where: { !canLeave[$0] && explorer.pumped[$0] == nil }) else {
                continue
            }
            let path = explorer.path(to: stuck)
            // The navigation that presented it: the last on the way that did.
            var presenting: Transition?
            var current = stuck
            while let reaching = explorer.reachedBy[current] {
                let transition = explorer.transitions[reaching]
                if !modals[transition.from].contains(signature) {
                    presenting = transition
                    break
                }
                current = transition.from
            }
            let name = signature.split(separator: " ").last.map(String.init) ?? signature
            let location = (presenting.flatMap { placingHandler(of: name, in: $0) } ?? declaredHandler(in: presenting))?
                .location
            guard seenModals.insert("\(name)|\(location.map { "\($0)" } ?? "")").inserted else { continue }
            // The root of a flow that ends but leaves it on screen: what is missing is the removal, not the end.
            let ending = spec.flows.first { flow in
                flow.root.name == name && !flow.restoresParentOnEnd
                    && flow.handlers.contains { $0.actions.contains { if case .end = $0.kind { true } else { false } } }
            }
            let remedy =
                ending.map {
                    "\($0.name) ends, but leaves its root on screen: give \($0.name) `restoreParentOnEnd: true`, or `dismiss: presented` in the handler of the step it ends with"
                }
                ?? "give a flow a `dismiss: presented`, an `end` of the flow it is the root of, or a stepper for it"
            findings.append(
                Finding(
                    .undismissableModal,
                    explorer.bounded ? .warning : .error,
                    "the modal \(name) (\(signature)) cannot be dismissed by any step once it is shown: only the user's own gesture could; \(remedy)",
                    at: location,
                    path: path
                )
            )
        }
        return findings
    }

    // MARK: Stacks

    private func unboundedStacks() -> [Finding] {
        var seen: Set<String> = []
        var findings: [Finding] = []
        for (index, growth) in explorer.pumped.sorted(by: { $0.key < $1.key }) where !growth.isDeclared {
            let reaching = explorer.reachedBy[index].map { explorer.transitions[$0] }
            let location =
                (reaching.flatMap { transition in
                    growth.screens.last.flatMap { placingHandler(of: $0, in: transition) }
                } ?? declaredHandler(in: reaching))?.location
            // One finding for each stack (or chain of modals), with the shortest path: breadth first, the first.
            let container = growth.stack.components(separatedBy: " > ").last ?? growth.stack
            guard seen.insert(container).inserted else { continue }
            let path = explorer.path(to: index)
            let cycle = Array(path.suffix(explorer.depths[index] - explorer.depths[growth.since]))
            findings.append(
                Finding(
                    .unboundedStack,
                    .warning,
                    "\(growth.stack) can grow without bound: \(growth.screens.joined(separator: ", ")) shown again and again, each time the cycle's inputs come (RxFlow pushes what a flow shows, even a screen shown already)",
                    at: location,
                    path: path,
                    cycle: cycle
                )
            )
        }
        return findings
    }
}

extension ExploredGraph {
    /// What a user sees in a state: the visible screens, by name (a journey's `visible`).
    static func label(of state: ExploredState) -> String {
        SessionView(state.inspection).visible.joined(separator: " > ")
    }
}
