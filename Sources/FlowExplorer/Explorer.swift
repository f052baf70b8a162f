import FlowCore
import FlowSpec

/// How far the explorer goes: states further than `depth` inputs from the start are not tried further, and no more
/// than `states` states are kept.
public struct ExplorationBounds: Sendable, Hashable {
    /// The most inputs on a path from the session's start.
    public var depth: Int
    /// The most states kept.
    public var states: Int

    /// Creates bounds (by default 40 inputs deep and 10 000 states: some seconds).
    public init(depth: Int = 40, states: Int = 10_000) {
        self.depth = depth
        self.states = states
    }
}

/// Explores every state a session of a flow file can reach, breadth first from its start: in each state it tries
/// every input that could come (``ExplorationInput``), and keeps each new state once (states are told apart by
/// their screens, flows, contributions and visibility, not by the engine's ids).
public struct Explorer {
    let specification: FlowSpecification
    let bounds: ExplorationBounds
    /// Each flow's steps (those it handles or adapts), with a value of each parameter's type: what a source that
    /// reaches the flow is tried with.
    let flowSteps: [String: [Step]]
    /// The steps a deep link may carry (those some flow handles and takes in deep links).
    let deepLinkSteps: [Step]
    /// Values of the session's data that some `adapt` rule reads: each is tried once.
    let dataValues: [(key: String, value: JSONValue)]

    var states: [ExploredState] = []
    var depths: [Int] = []
    /// The transition that first reached each state (`nil` for the start).
    var reachedBy: [Int?] = []
    var transitions: [Transition] = []
    var index: [StateKey: Int] = [:]
    /// States not tried further: a stack growing again with the same screens (``Finding/Kind/unboundedStack``).
    var pumped: [Int: StackGrowth] = [:]
    /// Whether a bound stopped the exploration before it had tried everything.
    var bounded = false
    /// Whether every combination of what the flows show is tried (without the reduction of ``FlowView``).
    let exhaustive: Bool
    /// The flow views met in the states tried, each with the first state that held it.
    var viewStates: [StateKey: Int] = [:]
    /// States not tried further because each of their flows was met in the same view before, with their flows'
    /// views (``FlowView``).
    var reduced: [Int: [FlowID: StateKey]] = [:]
    /// The views of flows found stuck where they were tried (``stuckFlows(in:transitions:)``): a state holding one
    /// is tried further even when every view in it was met, so that the other flows can get stuck too (a dead end
    /// is every flow stuck at once).
    var stuckViews: Set<StateKey> = []
    /// Reduced states where no step any stepper or screen sends is taken or changes anything and nothing the user
    /// does leads elsewhere (each was probed, input by input, until one did).
    var stuck: Set<Int> = []

    /// A stack that grew by the same screens it held just below: the cycle goes on for ever.
    struct StackGrowth {
        let stack: String
        let screens: [String]
        /// The state where the stack was shorter by the repeated screens.
        let since: Int
        /// Whether the flow whose root holds the stack says it may grow (`mayGrow: true`): no warning.
        var isDeclared = false
    }

    /// Prepares the exploration of a flow file's sessions. By default a state whose every flow was met in the same
    /// view in a state tried already is not tried further (``FlowView``); `exhaustive` tries every state.
    public init(
        _ specification: FlowSpecification,
        bounds: ExplorationBounds = ExplorationBounds(),
        exhaustive: Bool = false
    ) {
        self.specification = specification
        self.bounds = bounds
        self.exhaustive = exhaustive
        let step = { (name: String) in Step(name, specification.step(named: name)?.placeholderParameters ?? [:]) }
        var flowSteps: [String: [Step]] = [:]
        for flow in specification.flows {
            var names: [String] = []
            for name in flow.handlers.map(\.step) + flow.adaptRules.map(\.step) where !names.contains(name) {
                names.append(name)
            }
            flowSteps[flow.name] = names.map(step)
        }
        self.flowSteps = flowSteps
        deepLinkSteps = specification.steps.map(\.name).filter { name in
            specification.flows.contains { $0.deepLinks.takes(name) && $0.handler(for: name) != nil }
        }.map(step)
        var values: [(key: String, value: JSONValue)] = []
        var permissions: [JSONValue] = []
        for flow in specification.flows {
            for rule in flow.adaptRules {
                switch rule.condition {
                case .permission(let permission):
                    if !permissions.contains(.string(permission)) {
                        permissions.append(.string(permission))
                    }
                case .data(let key, let equals):
                    values.append((key, equals ?? .bool(true)))
                case .askGuard:
                    break
                }
            }
        }
        if !permissions.isEmpty {
            values.append(("permissions", .array(permissions)))
        }
        dataValues = values
    }

    /// Explores, and says what it found.
    public mutating func explore() throws(FlowCoreError) -> Exploration {
        var driver = try SessionDriver(specification)
        var startEffects = driver.startEffects
        startEffects.append(try driver.apply(.reportShown).effects)
        guard let start = ExploredState(driver.engine, session: SessionDriver.session) else {
            throw FlowCoreError(.unknownSession, "the session did not start")
        }
        let startHandled = Transition(
            from: -1,
            input: .reportShown,
            fate: nil,
            effects: startEffects,
            before: start,
            after: start
        )
        add(start, depth: 0, reachedBy: nil)
        var next = 0
        while next < states.count {
            let current = next
            next += 1
            guard pumped[current] == nil else { continue }
            guard depths[current] < bounds.depth else {
                bounded = true
                continue
            }
            if !exhaustive {
                let views = FlowView.keys(of: states[current])
                if current > 0 && views.values.allSatisfy({ viewStates[$0] != nil && !stuckViews.contains($0) }) {
                    reduced[current] = views
                    if !isLive(current) {
                        stuck.insert(current)
                    }
                    states[current].engine = nil
                    continue
                }
                for view in views.values where viewStates[view] == nil {
                    viewStates[view] = current
                }
            }
            let tried = transitions.count
            for input in inputs(in: states[current]) {
                try tryInput(input, in: current)
            }
            if !exhaustive {
                let views = FlowView.keys(of: states[current])
                for flow in stuckFlows(in: current, transitions: transitions[tried...]) {
                    if let view = views[flow] {
                        stuckViews.insert(view)
                    }
                }
            }
            states[current].engine = nil
        }
        return Exploration(explorer: self, start: startHandled)
    }

    private mutating func tryInput(_ input: ExplorationInput, in current: Int) throws(FlowCoreError) {
        let before = states[current]
        guard let engine = before.engine else { return }
        var driver = SessionDriver(specification: specification, engine: engine)
        var (effects, fate): (Effects, StepFate?)
        do {
            (effects, fate) = try driver.apply(input)
            // The presenters report what they show as soon as they have shown it (a step that comes before their
            // report is a race, not something the flow file does).
            effects.append(try driver.apply(.reportShown).effects)
        } catch {
            return  // Not applicable here.
        }
        guard let after = ExploredState(driver.engine, session: SessionDriver.session) else { return }
        var transition = Transition(
            from: current,
            input: input,
            fate: fate,
            effects: effects,
            before: before,
            after: after
        )
        if let known = index[after.key] {
            transition.to = known
        } else if states.count < bounds.states {
            transition.to = add(after, depth: depths[current] + 1, reachedBy: transitions.count)
            if let growth = growth(from: current, to: after), growsAgain(growth, after: after, by: input, from: current)
            {
                pumped[states.count - 1] = growth
            }
        } else {
            bounded = true
        }
        transitions.append(transition)
    }

    @discardableResult
    private mutating func add(_ state: ExploredState, depth: Int, reachedBy transition: Int?) -> Int {
        index[state.key] = states.count
        states.append(state)
        depths.append(depth)
        reachedBy.append(transition)
        return states.count - 1
    }

    /// Every input that could come in a state: each step from each live stepper and each screen whose steps a
    /// contribution takes, deep links, the presenters' report of what they show, a tab selected, a screen dismissed
    /// by the user, a guard's answer, and data the `adapt` rules read.
    func inputs(in state: ExploredState) -> [ExplorationInput] {
        let inspection = state.inspection
        let flowNames = Dictionary(inspection.flows.map { ($0.id, $0.name) }) { first, _ in first }
        // Each source, and the flows it reaches (as the `steps` query lists them): a live stepper's, a flow's own
        // and its contributions'; a screen's, the contributions that take its steps.
        var steppers: [(name: String, flows: [String])] = []
        var screens: [(screen: ScreenReference, flows: [String])] = []
        func reach(_ stepper: Stepper, _ flow: String?) {
            guard let flow else { return }
            for name in stepper.stepperIDs {
                if let index = steppers.firstIndex(where: { $0.name == name }) {
                    steppers[index].flows.append(flow)
                } else {
                    steppers.append((name, [flow]))
                }
            }
        }
        for flow in inspection.flows {
            reach(flow.stepper, flow.name)
        }
        for contribution in inspection.contributions {
            reach(contribution.stepper, flowNames[contribution.flow])
            let shown = inspection.visibility(of: contribution.presentable) == .visible
            guard contribution.stepper.listensToPresentable, shown || contribution.allowStepWhenNotPresented,
                let reference = state.references[contribution.presentable], let flow = flowNames[contribution.flow]
            else { continue }
            if let index = screens.firstIndex(where: { $0.screen == reference }) {
                screens[index].flows.append(flow)
            } else {
                screens.append((reference, [flow]))
            }
        }
        var inputs: [ExplorationInput] = []
        // A sender the flow file lists under `sends:` sends those steps, whether the flows it reaches take them or
        // not (flowd drops any other); one it does not list, any step of those flows.
        for (name, flows) in steppers {
            let sends = specification.steps(sentByStepper: name).map { $0.map(step(named:)) }
            inputs += (sends ?? steps(of: flows)).map { .step($0, from: .stepper(name)) }
        }
        for (screen, flows) in screens {
            let sends = specification.steps(sentByScreen: screen.name).map { $0.map(step(named:)) }
            inputs += (sends ?? steps(of: flows)).map { .step($0, from: .screen(screen)) }
        }
        inputs += deepLinkSteps.map { .deepLink($0) }
        let tree = inspection.screens
        for id in state.screens {
            guard let node = tree[id], let reference = state.references[id] else { continue }
            switch node.placement {
            // The user acts on what they see: a tab of a tab bar on screen, a modal or a stack's top that shows.
            case .tab:
                if let parent = node.parent, tree[parent]?.items.firstIndex(of: id) != tree[parent]?.selectedTab,
                    inspection.visibility[parent] == .visible
                {
                    inputs.append(.selectTab(reference))
                }
            case .modal:
                if inspection.visibility[id] == .visible {
                    inputs.append(.dismiss(reference))
                }
            case .stackItem:
                if let parent = node.parent, tree[parent]?.items.first != id, inspection.visibility[id] == .visible {
                    inputs.append(.dismiss(reference))
                }
            case .windowRoot, .master, .detail:
                break
            }
        }
        if inspection.pendingGuard != nil {
            inputs += [.guardAnswer(allowed: true), .guardAnswer(allowed: false)]
        }
        for (key, value) in dataValues where inspection.sessionData[key] != value {
            inputs.append(.sessionData(key: key, value: value))
        }
        return inputs
    }

    /// A step of this name with a value of each parameter's type.
    private func step(named name: String) -> Step {
        Step(name, specification.step(named: name)?.placeholderParameters ?? [:])
    }

    /// The steps of some flows, each once.
    private func steps(of flows: [String]) -> [Step] {
        var names: Set<String> = []
        var steps: [Step] = []
        for flow in flows {
            for step in flowSteps[flow] ?? [] where names.insert(step.name).inserted {
                steps.append(step)
            }
        }
        return steps
    }

    /// The inputs from the start to a state, shortest first (breadth first: the first path found is a shortest).
    func path(to state: Int) -> [ExplorationInput] {
        var inputs: [ExplorationInput] = []
        var current = state
        while let transition = reachedBy[current] {
            inputs.append(transitions[transition].input)
            current = transitions[transition].from
        }
        return inputs.reversed()
    }
}
