extension Session {
    /// Processes queued work, one item at a time in order, until the queue is empty or a guard must answer.
    /// Work that arrives meanwhile is queued behind, never handled re-entrantly.
    ///
    /// One event may cause at most ``EngineOptions/maxStepsPerEvent`` navigations; past that (a forward
    /// loop), the rest of the queue is dropped with ``DropReason/tooManySteps``, so no session can stall
    /// the engine.
    mutating func drain() {
        var processed = 0
        while !state.waitsForGuard {
            let item: WorkItem
            if !state.queue.isEmpty {
                item = state.queue.removeFirst()
            } else if !state.idle.isEmpty {
                item = state.idle.removeFirst()
            } else {
                break
            }
            processed += 1
            if processed > options.maxStepsPerEvent {
                dropEverythingQueued(with: .tooManySteps, first: item)
                break
            }
            process(item)
        }
    }

    /// Drops every queued item (and `first`), deciding their steps' fates.
    private mutating func dropEverythingQueued(with reason: DropReason, first: WorkItem) {
        let items = [first] + state.queue + state.idle
        state.queue = []
        state.idle = []
        state.activePath = nil
        for item in items {
            switch item {
            case .deliver(let delivery):
                finish(delivery, .dropped(reason))
            case .deepLink(let token, _, _):
                if let progress = state.tokens[token] {
                    decide(token, step: progress.step, source: progress.source, fate: .dropped(reason))
                }
            }
        }
    }

    private mutating func process(_ item: WorkItem) {
        switch item {
        case .deliver(let delivery):
            adapt(delivery)
        case .deepLink(let token, let path, let index):
            broadcast(token: token, path: path, index: index)
        }
    }

    /// Runs the target flow's `adapt`, then navigates, drops, or asks a guard.
    private mutating func adapt(_ delivery: Delivery) {
        guard let flow = flows[delivery.flow] else {
            finish(delivery, .dropped(.flowEnded(delivery.flow)))
            return
        }
        let context = AdaptContext(session: id, flow: delivery.flow, sessionData: state.sessionData)
        switch flow.adapt(step: delivery.step, context: context) {
        case .none:
            adaptedAway(delivery, to: .none)
        case .step(let step):
            navigate(delivery, to: step)
        case .ask(let question):
            state.lastQuestion += 1
            let pending = PendingGuard(
                id: state.lastQuestion,
                delivery: delivery,
                question: question,
                deadline: now + options.guardTimeout
            )
            state.pendingGuard = pending
            event(
                .guardAsked(
                    question: pending.id,
                    guardName: question.guardName,
                    subject: question.subject,
                    step: question.step
                )
            )
            effects.questions.append(
                GuardRequest(session: id, id: pending.id, question: question, deadline: pending.deadline)
            )
        }
    }

    /// Continues a step whose guard answered (or timed out), then goes on with the queue.
    mutating func answerGuard(_ question: UInt64, allowed: Bool, timedOut: Bool) throws(FlowCoreError) {
        guard let pending = state.pendingGuard, pending.id == question else {
            throw FlowCoreError(.unknownQuestion, "no guard question \(question) is waiting in session \(id)")
        }
        state.pendingGuard = nil
        event(.guardAnswered(question: question, allowed: allowed, timedOut: timedOut))
        navigate(pending.delivery, to: allowed ? pending.question.ifAllowed : pending.question.ifRefused)
        drain()
    }

    /// A step adapted to no step: dropped with the reason. As in RxFlow (where the none step is navigated),
    /// the flow has still processed a step, which counts for its readiness.
    private mutating func adaptedAway(_ delivery: Delivery, to step: Step) {
        event(.adapted(flow: delivery.flow, from: delivery.step, to: step))
        finish(delivery, .dropped(.adaptedAway(delivery.flow)))
        updateReadiness(of: delivery.flow, startedChildren: [])
    }

    /// Navigates a delivered (and adapted) step in its flow and carries out what the flow returned.
    private mutating func navigate(_ delivery: Delivery, to step: Step) {
        let flowID = delivery.flow
        guard let flow = flows[flowID], let index = state.flows.index(forKey: flowID) else {
            finish(delivery, .dropped(.flowEnded(flowID)))
            return
        }
        // What the navigation needs of the flow's record, read in place.
        let (name, root, parent) = state.flows.inPlace(at: index) { ($0.name, $0.root, $0.parent) }
        if step.isNone {
            adaptedAway(delivery, to: step)
            return
        }
        if step != delivery.step {
            event(.adapted(flow: flowID, from: delivery.step, to: step))
        }

        event(.willNavigate(flow: flowID, name: name, step: step))
        var navigator = Navigator(
            session: id,
            flow: flowID,
            root: root,
            sessionData: state.sessionData,
            mainPresenter: state.mainPresenter,
            screens: state.screens,
            ids: state.ids,
            maxPresentables: options.maxPresentables
        )
        state.screens = ScreenTree()  // Moved into the navigator, so its changes do not copy the tree.
        let contributors = flow.navigate(to: step, with: &navigator)
        state.screens = navigator.screens
        state.ids = navigator.ids
        event(.didNavigate(flow: flowID, name: name, step: step, contributors: contributors.summary))
        for rejection in navigator.rejections {
            event(.commandRejected(flow: flowID, operation: rejection.operation, reason: rejection.reason.message))
            if rejection.reason.code == .limitReached {
                effects.limitsReached.append(
                    LimitReached(limit: "presentables", session: id, message: rejection.reason.message)
                )
            }
        }

        var batch = PendingBatch(flow: flowID, step: step, commands: navigator.commands)
        handleRemoved(navigator.removed, batch: &batch)

        var deferred: [Delivery] = []
        var startedChildren: [FlowID] = []
        switch contributors {
        case .end(let forwarded):
            if let parent {
                enqueue(forwarded, to: parent, source: nil)
            } else {
                event(.forwardDroppedAtRoot(flow: flowID, step: forwarded))
                for child in state.flows[flowID]?.children ?? [] {
                    endFlow(child, reason: "its parent, the root flow, ended with \(forwarded.name)", batch: &batch)
                }
            }
            if parent != nil {
                endFlow(flowID, reason: "it ended with \(forwarded.name)", batch: &batch)
            }
        case .none, .one, .multiple:
            let list = contributors.list
            for contributor in list {
                switch contributor {
                case .forwardToParentFlow(let forwarded):
                    if let parent {
                        enqueue(forwarded, to: parent, source: nil)
                    } else {
                        event(.forwardDroppedAtRoot(flow: flowID, step: forwarded))
                    }
                case .forwardToCurrentFlow(let forwarded):
                    deferred.append(register(forwarded, to: flowID, source: nil))
                case .contribute:
                    break
                }
            }
            for contributor in list {
                guard
                    case .contribute(let presentable, let stepper, let notPresented, let dismissed) = contributor,
                    state.flows.index(forKey: flowID) != nil, !navigator.leftOut.contains(presentable.presentable)
                else {
                    continue
                }
                switch presentable {
                case .screen(let screen):
                    contribute(screen, in: flowID, stepper: stepper, notPresented: notPresented, dismissed: dismissed)
                case .flow(let child):
                    if start(child, in: flowID, made: navigator.childFlows, stepper: stepper, dismissed: dismissed) {
                        startedChildren.append(child.id)
                    }
                }
            }
        }
        // Forwards first: a deep link released by readiness goes behind them.
        state.queue += deferred.map { .deliver($0) }
        if state.flows.index(forKey: flowID) != nil {
            updateReadiness(of: flowID, startedChildren: startedChildren)
        }
        flush(batch)
        finish(delivery, .navigated(declared: flow.declares(step)))
    }

    /// Starts taking a screen's steps from `stepper`, emitting the stepper's initial steps (each dropped,
    /// with the reason, when the screen is not visible and the contribution does not allow it).
    private mutating func contribute(
        _ screen: PresentableID,
        in flowID: FlowID,
        stepper: Stepper,
        notPresented: Bool,
        dismissed: Bool
    ) {
        let contribution = Contribution(
            flow: flowID,
            presentable: screen,
            stepper: stepper,
            allowStepWhenNotPresented: notPresented,
            allowStepWhenDismissed: dismissed
        )
        // Only a contribution that can still bring steps is kept (one-step steppers have said everything
        // when it starts), and only once: contributing the same again adds nothing.
        let listens = stepper.listensToSteppers || stepper.listensToPresentable
        if listens && !state.contributions.contains(contribution) {
            guard state.contributions.count < options.maxPresentables else {
                limitReached(
                    "contributions",
                    flow: flowID,
                    "the session has \(state.contributions.count) contributions and may have \(options.maxPresentables) (maxPresentables): \(screen) is not contributed"
                )
                return
            }
            state.contributions.append(contribution)
        }
        for step in stepper.initialSteps {
            let visibility = visibility(of: screen)
            if notPresented || visibility == .visible {
                enqueue(step, to: flowID, source: nil)
            } else {
                let delivery = register(step, to: flowID, source: nil)
                finish(delivery, .dropped(.notVisible(screen, visibility)))
            }
        }
    }

    /// Starts a child flow made in this navigation; its stepper's initial steps are queued (never paused).
    private mutating func start(
        _ child: ChildFlow,
        in parentID: FlowID,
        made: [FlowID: any Flow],
        stepper: Stepper,
        dismissed: Bool
    ) -> Bool {
        guard state.flows.count < options.maxPresentables else {
            limitReached(
                "flows",
                flow: parentID,
                "the session runs \(state.flows.count) flows and may run \(options.maxPresentables) (maxPresentables): \(child.id) is not started"
            )
            return false
        }
        guard let flow = made[child.id], state.flows[child.id] == nil else {
            event(
                .commandRejected(
                    flow: parentID,
                    operation: "contribute",
                    reason: "the child flow \(child.id) was not made by this navigation (or already runs)"
                )
            )
            return false
        }
        flows[child.id] = flow
        state.flows[child.id] = FlowRecord(
            id: child.id,
            name: flow.name,
            parameters: flow.parameters,
            parent: parentID,
            root: child.root,
            stepper: stepper,
            allowStepWhenDismissed: dismissed,
            restoresParentOnEnd: flow.restoresParentOnEnd
        )
        state.flows[parentID]?.children.append(child.id)
        event(.flowStarted(flow: child.id, name: flow.name, parent: parentID, root: child.root))
        for step in stepper.initialSteps {
            enqueue(step, to: child.id, source: nil)
        }
        return true
    }
}

extension Session {
    /// Something was left out because a limit of ``EngineOptions`` was reached: an event, and a note in the effects.
    fileprivate mutating func limitReached(_ limit: String, flow: FlowID, _ message: String) {
        event(.commandRejected(flow: flow, operation: "contribute", reason: message))
        effects.limitsReached.append(LimitReached(limit: limit, session: id, message: message))
    }
}

extension FlowContributors {
    /// The contributors as a list (empty for `.none` and `.end`).
    var list: [FlowContributor] {
        switch self {
        case .none, .end: []
        case .one(let contributor): [contributor]
        case .multiple(let contributors): contributors
        }
    }

    var isNone: Bool {
        if case .none = self { true } else { false }
    }

    /// A short text for inspection: `none`, `end(step)`, `contribute p3 (presentable), forwardToParent x`.
    var summary: String {
        switch self {
        case .none: return "none"
        case .end(let step): return "end(\(step.name))"
        case .one, .multiple:
            return list.map { contributor in
                switch contributor {
                case .contribute(let presentable, let stepper, _, _):
                    switch presentable {
                    case .screen(let id): "contribute \(id) (\(stepper))"
                    case .flow(let child): "start \(child.id) (\(stepper))"
                    }
                case .forwardToCurrentFlow(let step): "forwardToCurrentFlow \(step.name)"
                case .forwardToParentFlow(let step): "forwardToParentFlow \(step.name)"
                }
            }.joined(separator: ", ")
        }
    }
}
