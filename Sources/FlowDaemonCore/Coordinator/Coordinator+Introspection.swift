import FlowCore
import FlowSpec
import FlowWire

extension Coordinator {
    /// The `flows` reply: the flow file this flowd runs.
    func flowsReport() -> FlowsReport {
        FlowsReport(setup.specification)
    }

    /// The `steps` reply for `session`: every source of steps it has now, and for each, every step the flows it
    /// reaches handle, tried on a copy of the session (an engine holding that session alone): its fate now, and
    /// what the flows would do. `nil` when the session does not exist.
    func stepsReport(for session: SessionID) -> StepsReport? {
        guard let inspection = engine.inspect(session), let snapshot = try? engine.snapshot(of: session) else {
            return nil
        }
        var scratch = FlowEngine(
            registry: setup.specification.registry,
            options: setup.configuration.engine,
            now: EngineTime(milliseconds: now)
        )
        guard (try? scratch.restore(snapshot)) != nil else { return nil }
        let flowNames = Dictionary(inspection.flows.map { ($0.id, $0.name) }) { first, _ in first }
        // Which flows each source reaches: a flow's own stepper, and each contribution's.
        var stepperFlows: [String: [FlowID]] = [:]
        var screenFlows: [PresentableID: [FlowID]] = [:]
        for flow in inspection.flows {
            for id in flow.stepper.stepperIDs {
                stepperFlows[id, default: []].append(flow.id)
            }
        }
        for contribution in inspection.contributions {
            for id in contribution.stepper.stepperIDs {
                stepperFlows[id, default: []].append(contribution.flow)
            }
            if contribution.stepper.listensToPresentable {
                screenFlows[contribution.presentable, default: []].append(contribution.flow)
            }
        }
        var sources: [StepsReport.Source] = []
        // Each try copies the session and runs on flowd's loop: a large session's are bounded.
        var budget = Self.stepTrialLimit
        for (stepper, flows) in stepperFlows.sorted(by: { $0.key < $1.key }) {
            sources.append(
                source(
                    .stepper(stepper),
                    sends: setup.specification.steps(sentByStepper: stepper),
                    flows: flows,
                    names: flowNames,
                    trying: scratch,
                    session: session,
                    budget: &budget
                )
            )
        }
        for (presentable, flows) in screenFlows.sorted(by: { $0.key < $1.key }) {
            let name = inspection.screens[presentable]?.description.name
            var screen = source(
                .presentable(presentable),
                sends: name.flatMap { setup.specification.steps(sentByScreen: $0) },
                flows: flows,
                names: flowNames,
                trying: scratch,
                session: session,
                budget: &budget
            )
            screen.name = name
            screen.visibility = inspection.visibility(of: presentable)
            sources.append(screen)
        }
        var report = StepsReport(session: session.rawValue, sources: sources)
        report.untried = sources.reduce(0) { $0 + $1.steps.count } - (Self.stepTrialLimit - budget)
        return report
    }

    /// How many steps one `steps` query tries at most; the others are listed untried.
    static let stepTrialLimit = 256

    /// One source's candidates: the steps its flows handle (or, when the flow file lists what it sends, those),
    /// each tried on its own copy of `scratch`.
    private func source(
        _ source: StepSource,
        sends: [String]?,
        flows: [FlowID],
        names: [FlowID: String],
        trying scratch: FlowEngine,
        session: SessionID,
        budget: inout Int
    ) -> StepsReport.Source {
        let reached = Array(Set(flows)).sorted().compactMap { names[$0] }
        var candidates: [String: StepsReport.Candidate] = [:]
        var order: [String] = []
        for name in sends ?? [] where candidates[name] == nil {
            order.append(name)
            candidates[name] = StepsReport.Candidate(
                step: name,
                parameters: setup.specification.step(named: name)?.parameterTypes ?? [:],
                actions: []
            )
        }
        for flowName in reached {
            for handler in setup.specification.flow(named: flowName)?.handlers ?? []
            where sends?.contains(handler.step) ?? true {
                if candidates[handler.step] == nil {
                    order.append(handler.step)
                    candidates[handler.step] = StepsReport.Candidate(
                        step: handler.step,
                        parameters: setup.specification.step(named: handler.step)?.parameterTypes ?? [:],
                        actions: []
                    )
                }
                candidates[handler.step]?.actions += handler.actions.map { "\(flowName): \($0.text)" }
            }
        }
        var steps: [StepsReport.Candidate] = []
        for name in order {
            guard var candidate = candidates[name] else { continue }
            guard budget > 0 else {
                steps.append(candidate)
                continue
            }
            budget -= 1
            var trial = scratch
            let step = Step(name, setup.specification.step(named: name)?.placeholderParameters ?? [:])
            let (token, effects) = trial.receive(step, from: source, session: session)
            // An adapt rule that turns it into another step: what happens is that step's actions.
            for event in effects.events {
                guard case .adapted(let flow, let from, let to) = event.kind, from.name == name,
                    let flowName = trial.inspect(session)?.flows.first(where: { $0.id == flow })?.name
                        ?? scratch.inspect(session)?.flows.first(where: { $0.id == flow })?.name
                else { continue }
                candidate.adaptedTo = to.isNone ? "none" : to.name
                let handler = setup.specification.flow(named: flowName)?.handlers.first { $0.step == to.name }
                candidate.actions =
                    to.isNone
                    ? ["\(flowName): nothing (adapted to none)"]
                    : (handler?.actions.map { "\(flowName): \($0.text)" } ?? ["\(flowName): \(to.name) is not handled"])
            }
            if let fate = effects.fate(of: token) {
                let wire = WireFate(fate)
                candidate.passes = wire.accepted
                candidate.reason = wire.reason
                candidate.explanation = wire.explanation
                candidate.remedy = wire.remedy
            } else if let question = effects.questions.first {
                candidate.guardName = question.question.guardName
            }
            steps.append(candidate)
        }
        switch source {
        case .stepper(let name):
            return StepsReport.Source(stepper: name, presentable: nil, flows: reached, steps: steps)
        case .presentable(let id):
            return StepsReport.Source(stepper: nil, presentable: id, flows: reached, steps: steps)
        }
    }
}

extension FlowsReport {
    /// The `flows` reply for a flow file: its session's start, every step with its parameters, every flow with the
    /// steps it handles and what it does with each, every screen.
    public init(_ spec: FlowSpecification) {
        self.init(
            file: spec.file,
            rootFlow: spec.session.rootFlow,
            stepper: spec.session.stepper.text,
            stepperName: { if case .named(let name) = spec.session.stepper { name } else { nil } }(),
            steps: spec.steps.map { FlowsReport.StepInfo(name: $0.name, parameters: $0.parameterTypes) },
            flows: spec.flows.map { flow in
                FlowsReport.FlowInfo(
                    name: flow.name,
                    root: "\(flow.root.style.rawValue) \(flow.root.name)",
                    handlers: flow.handlers.map { handler in
                        FlowsReport.Handler(step: handler.step, actions: handler.actions.map(\.text))
                    },
                    adapts: flow.adaptRules.map(\.text)
                )
            },
            screens: spec.screenNames
        )
    }
}
