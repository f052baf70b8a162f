/// One session at work: its state, its live flows, and the effects of the operation in progress.
struct Session: Sendable {
    var state: SessionState
    var flows: SmallTable<FlowID, any Flow>
    /// The engine's options, shared by its sessions.
    private let sharedOptions: SharedEngineOptions
    var now: EngineTime
    var effects = Effects()
    /// Whether every inspection event is recorded, or only fates (``FlowEngine/recordsInspectionEvents``).
    var recordsEvents = true

    var id: SessionID { state.id }

    /// Limits and defaults.
    var options: EngineOptions { sharedOptions.options }

    /// Starts a session whose root flow is `root`, driven by `stepper`.
    init(
        id: SessionID,
        root: any Flow,
        stepper: Stepper,
        allowStepWhenDismissed: Bool,
        options: SharedEngineOptions,
        now: EngineTime
    ) {
        var ids = IDAllocator()
        let flowID = ids.nextFlow()
        let rootID = ids.nextPresentable()
        state = SessionState(id: id, mainPresenter: options.options.mainPresenter, ids: ids, rootFlow: flowID)
        flows = [flowID: root]
        sharedOptions = options
        self.now = now

        let rootDescription = PresentableDescription(
            id: rootID,
            style: root.root.style,
            name: root.root.name,
            parameters: root.root.parameters,
            flow: flowID
        )
        state.flows[flowID] = FlowRecord(
            id: flowID,
            name: root.name,
            parameters: root.parameters,
            parent: nil,
            root: rootID,
            stepper: stepper,
            allowStepWhenDismissed: allowStepWhenDismissed,
            restoresParentOnEnd: false
        )
        event(.sessionStarted(rootFlow: flowID, name: root.name))
        event(.flowStarted(flow: flowID, name: root.name, parent: nil, root: rootID))
        var batch = PendingBatch(flow: flowID, step: nil)
        batch.run(.setWindowRoot(rootDescription), for: self.options.mainPresenter, on: &state.screens)
        flush(batch)
        for step in stepper.initialSteps {
            enqueue(step, to: flowID, source: nil)
        }
        drain()
        releaseSpareStorage()
    }

    /// Gives back the storage of the queues and the steps' progress once they are empty, as they are when a new
    /// session has taken its initial steps: most sessions wait idle from then on, and an empty array or dictionary
    /// that held something keeps its capacity. (Not after every step: a busy session would allocate it again.)
    mutating func releaseSpareStorage() {
        if state.queue.isEmpty { state.queue = [] }
        if state.idle.isEmpty { state.idle = [] }
        if state.tokens.isEmpty { state.tokens = [:] }
    }

    /// Restores a session from its state, remaking its flows with `registry`. With `renewingDeadlines`, deadlines
    /// start again at `now` and a waiting guard question is asked again (the state came from another engine);
    /// without, the session is exactly as it was, on the same clock.
    init(
        state: SessionState,
        registry: FlowRegistry,
        options: SharedEngineOptions,
        now: EngineTime,
        renewingDeadlines: Bool = true
    ) throws(FlowCoreError) {
        var flows: SmallTable<FlowID, any Flow> = SmallTable()
        for record in state.flows.values.sorted(by: { $0.id < $1.id }) {
            let flow = try registry.make(record.name, parameters: record.parameters)
            guard flow.name == record.name else {
                throw FlowCoreError(
                    .invalidSnapshot,
                    "the registry made a flow named \"\(flow.name)\" for \"\(record.name)\"; register it under its name"
                )
            }
            flows[record.id] = flow
        }
        self.state = state
        self.flows = flows
        sharedOptions = options
        self.now = now
        guard renewingDeadlines else { return }
        // Deadlines were counted on the old engine's clock: they start again on this one's. A guard question
        // that was waiting is asked again (the old asker is gone).
        self.state.waitingDeepLinks = state.waitingDeepLinks.map {
            WaitingDeepLink(token: $0.token, path: $0.path, deadline: now + options.options.deepLinkWait)
        }
        if let pending = state.pendingGuard {
            let renewed = PendingGuard(
                id: pending.id,
                delivery: pending.delivery,
                question: pending.question,
                deadline: now + options.options.guardTimeout
            )
            self.state.pendingGuard = renewed
            effects.questions.append(
                GuardRequest(session: state.id, id: renewed.id, question: renewed.question, deadline: renewed.deadline)
            )
        }
    }

    /// Takes the effects gathered so far, leaving none.
    mutating func takeEffects() -> Effects {
        defer { effects = Effects() }
        return effects
    }

    /// Records an inspection event, when they are recorded (the event is not even made otherwise).
    mutating func event(_ kind: @autoclosure () -> NavigationEvent.Kind) {
        guard recordsEvents else { return }
        effects.events.append(NavigationEvent(session: id, kind: kind()))
    }

    /// Records a step's fate: always (a coordinator learns of drops from them). The kind is consumed: the event takes
    /// it as it was made (borrowed, it was copied, its step and fate with it).
    mutating func fateEvent(_ kind: consuming NavigationEvent.Kind) {
        effects.events.append(NavigationEvent(session: id, kind: kind))
    }

    /// Sends a batch's commands, grouped by presenter in the order each presenter first appears.
    mutating func flush(_ batch: PendingBatch) {
        // The closure captures what it needs of the batch, not the batch (that would copy it).
        let (flow, step) = (batch.flow, batch.step)
        batch.commands.forEachPresenter { presenter, commands in
            hideCovered(of: presenter)
            effects.batches.append(
                CommandBatch(session: id, presenter: presenter, commands: commands, flow: flow, step: step)
            )
        }
    }
}

extension Session {
    /// flowd owns the screen tree: a screen its commands just covered (a push, a presentation, another tab, a
    /// dismissal above it) is no longer visible, at once, so that its steps stop passing before the presenter says
    /// so. A screen uncovered keeps its state until its presenter reports it (it may not be drawn yet).
    mutating func hideCovered(of presenter: PresenterID) {
        // Only a screen marked visible can become hidden: with none of this presenter's, nothing to look at.
        let screens = state.screens
        guard state.visibility.contains(where: { $0.value == .visible && screens[$0.key]?.presenter == presenter })
        else { return }
        let showing = Set(state.screens.visiblePresentables(of: presenter))
        for presentable in state.screens.presentables(of: presenter)
        where !showing.contains(presentable) && visibility(of: presentable) == .visible {
            state.visibility[presentable] = .hidden
            event(.visibilityChanged(presentable: presentable, visibility: .hidden))
        }
    }
}

/// The commands of one navigation, before they are grouped into batches.
struct PendingBatch {
    let flow: FlowID
    let step: Step?
    var commands = PresenterCommands()

    /// Applies a command the engine itself decided on (not a flow's), keeping it if it fits.
    @discardableResult
    mutating func run(
        _ command: NavigationCommand,
        for presenter: PresenterID,
        on screens: inout ScreenTree
    ) -> ScreenTree.Change? {
        guard let change = try? screens.apply(command, for: presenter) else {
            return nil
        }
        commands.append(command, for: presenter)
        return change
    }
}
