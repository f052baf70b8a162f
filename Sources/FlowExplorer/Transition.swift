import FlowCore

/// What one input did to a state, as the findings need it.
struct Transition {
    /// The state it was tried in, and the one it led to (`nil`: past the bound on states, not kept).
    let from: Int
    var to: Int?
    let input: ExplorationInput
    /// The fate of the step or deep link the input was (`nil` for other inputs, or a step waiting for a guard).
    let fate: StepFate?
    /// Each flow's navigation to a step: the handler that ran (flow name, step name).
    var handled: [Handled] = []
    /// The steps accepted in the input's turn, whatever sent them (a flow's one-step stepper too).
    var acceptedSteps: Set<String> = []
    /// The flows started.
    var started: [String] = []
    /// Steps a flow sent on its own (`end`, `forwardToParentFlow`, `forwardToCurrentFlow`) that were dropped.
    var droppedForwards: [DroppedForward] = []
    /// Commands a flow asked for that did not fit the screen.
    var rejectedCommands: [RejectedCommand] = []
    /// Screens left on screen by a flow that ended, with nothing to take their steps.
    var orphaned: [Orphan] = []

    struct Handled: Hashable {
        let flow: String
        let step: String
    }

    struct DroppedForward {
        let step: String
        let reason: String
        /// The navigations of the input up to the drop, latest last: one of them sent it.
        let after: [Handled]
    }

    struct RejectedCommand {
        let operation: String
        let reason: String
        let by: Handled?
    }

    struct Orphan {
        let screen: String
        let position: String
        /// The flow that ended, and the navigation that ended it.
        let flow: String
        let by: Handled?
    }

    init(
        from: Int,
        input: ExplorationInput,
        fate: StepFate?,
        effects: Effects,
        before: ExploredState,
        after: ExploredState?
    ) {
        self.from = from
        self.input = input
        self.fate = fate
        var last: [FlowID: Handled] = [:]
        var lastAny: Handled?
        var ended: [(flow: FlowID, name: String, by: Handled?)] = []
        for event in effects.events {
            switch event.kind {
            case .didNavigate(let flow, let name, let step, _):
                let handled = Handled(flow: name, step: step.name)
                self.handled.append(handled)
                last[flow] = handled
                lastAny = handled
            case .flowStarted(_, let name, _, _):
                started.append(name)
            case .stepFate(_, let step, _, .accepted):
                acceptedSteps.insert(step.name)
            case .stepFate(_, let step, let source, let fate) where source == nil:
                if case .dropped(let reason) = fate {
                    droppedForwards.append(DroppedForward(step: step.name, reason: reason.code, after: handled))
                }
            case .commandRejected(let flow, let operation, let reason):
                rejectedCommands.append(
                    RejectedCommand(operation: operation, reason: reason, by: last[flow] ?? lastAny)
                )
            case .forwardDroppedAtRoot(let flow, let step):
                droppedForwards.append(
                    DroppedForward(
                        step: step.name,
                        reason: "forwardedFromRoot",
                        after: (last[flow] ?? lastAny).map { [$0] } ?? []
                    )
                )
            case .flowEnded(let flow, let name, _):
                ended.append((flow, name, last[flow]))
            default:
                break
            }
        }
        if let after {
            orphaned = Self.orphans(ended: ended, before: before, after: after)
        }
    }

    /// The screens on screen after the input whose flow has ended, where no contribution takes their steps and no
    /// flow has them as its root — and were not so before it: what the flows that ended in it left behind.
    private static func orphans(
        ended: [(flow: FlowID, name: String, by: Handled?)],
        before: ExploredState,
        after: ExploredState
    ) -> [Orphan] {
        guard !ended.isEmpty else { return [] }
        let names = Dictionary(ended.map { ($0.flow, $0.name) }) { first, _ in first }
        // The navigation that ended them: the ended flow that navigated last (its `end`), else the first.
        let cause = ended.last { $0.by != nil } ?? ended[0]
        let orphaned = { (state: ExploredState, id: PresentableID) -> FlowID? in
            let inspection = state.inspection
            guard let owner = inspection.screens[id]?.description.flow,
                !inspection.flows.contains(where: { $0.id == owner || $0.root == id }),
                !inspection.contributions.contains(where: { $0.presentable == id })
            else { return nil }
            return owner
        }
        return after.screens.compactMap { id in
            guard let owner = orphaned(after, id), let name = names[owner],
                before.inspection.screens[id] == nil || orphaned(before, id) == nil
            else { return nil }
            return Orphan(
                screen: after.inspection.screens[id]?.description.name ?? "?",
                position: after.position(of: id),
                flow: name,
                by: cause.by
            )
        }
    }
}
