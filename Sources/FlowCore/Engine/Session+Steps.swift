extension Session {
    /// Takes in a step from a stepper process or a presentable, and routes it to every flow that listens to
    /// that source: a flow's own stepper always, a contribution only while its presentable is visible
    /// (unless it allows otherwise). The fate comes when the last delivery is navigated or dropped.
    mutating func receive(_ step: Step, from source: StepSource) -> StepToken {
        let token = state.ids.nextToken()
        event(.stepReceived(token: token, step: step, source: source))
        if step.isNone {
            decide(token, step: step, source: source, fate: .dropped(.noneStep))
            return token
        }
        // Each flow it reaches gets a delivery at the end of the queue, taken out of the session while routing (no
        // list of targets made); those are taken back off when the step cannot be queued.
        var queue: [WorkItem] = []
        swap(&queue, &state.queue)
        let queuedBefore = queue.count
        func target(_ flow: FlowID) {
            queue.append(.deliver(Delivery(flow: flow, step: step, token: token)))
        }
        var reasons: [DropReason] = []
        // What the routing reads, taken out of the session (references, not copies: a closure that read the session
        // itself made the call copy the whole session state for it), in a scope of their own: kept past it, they
        // would make the session's next change to them copy them.
        do {
            let contributions = state.contributions
            let visibilities = state.visibility
            func consider(_ contribution: Contribution) {
                guard contribution.stepper.listens(to: source, presentable: contribution.presentable) else { return }
                let visibility =
                    contribution.presentableDismissed
                    ? .dismissed : visibilities[contribution.presentable] ?? .unknown
                if contribution.allowStepWhenNotPresented || visibility == .visible {
                    target(contribution.flow)
                } else {
                    reasons.append(.notVisible(contribution.presentable, visibility))
                }
            }
            // Flows in preorder, each with its contributions in order. A large session's contributions are grouped by
            // flow first: scanning them all for every flow made a step cost flows × contributions (63 ms a step in a
            // session of 1000 flows); a small one's are scanned, which allocates nothing.
            let grouped: [FlowID: [Int]]? =
                contributions.count > 32
                ? Dictionary(grouping: contributions.indices, by: { contributions[$0].flow }) : nil
            SessionState.forEachFlowInPreorder(of: &state.flows, from: state.rootFlow) { flowID, record in
                if record.stepper.listens(to: source, presentable: record.root) {
                    target(flowID)
                }
                if let grouped {
                    for index in grouped[flowID] ?? [] {
                        consider(contributions[index])
                    }
                } else {
                    for contribution in contributions where contribution.flow == flowID {
                        consider(contribution)
                    }
                }
            }
        }
        let targets = queue.count - queuedBefore
        let fits = queue.count <= options.maxQueuedSteps
        if !fits {
            queue.removeLast(targets)
        }
        swap(&queue, &state.queue)
        guard targets > 0 else {
            // Why it reaches no flow: a contribution it cannot reach now, else the latest ended binding it was for.
            let ended = state.ended.suffix(options.endedMemory).last {
                $0.stepper.listens(to: source, presentable: $0.presentable)
            }
            decide(token, step: step, source: source, fate: .dropped(reasons.first ?? ended?.reason ?? .unboundStepper))
            return token
        }
        guard fits else {
            decide(token, step: step, source: source, fate: .dropped(.queueFull))
            return token
        }
        state.tokens[token] = TokenProgress(step: step, source: source, pending: targets)
        drain()
        return token
    }

    /// Takes in a step only to drop it at once for `reason` (its parameters do not match their declaration): it
    /// gets a token and a fate like any step, and reaches no flow.
    mutating func refuse(_ step: Step, from source: StepSource?, reason: DropReason) -> StepToken {
        let token = state.ids.nextToken()
        event(.stepReceived(token: token, step: step, source: source))
        decide(token, step: step, source: source, fate: .dropped(reason))
        return token
    }

    /// Queues a step the coordinator emits itself (an initial step, a forward), with its own token.
    @discardableResult
    mutating func enqueue(_ step: Step, to flow: FlowID, source: StepSource?) -> Delivery {
        let delivery = register(step, to: flow, source: source)
        if state.queue.count >= options.maxQueuedSteps {
            finish(delivery, .dropped(.queueFull))
        } else {
            state.queue.append(.deliver(delivery))
        }
        return delivery
    }

    /// Gives a coordinator-emitted step a token and a progress record, without queueing it.
    mutating func register(_ step: Step, to flow: FlowID, source: StepSource?) -> Delivery {
        let token = state.ids.nextToken()
        event(.stepReceived(token: token, step: step, source: source))
        state.tokens[token] = TokenProgress(step: step, source: source, pending: 1)
        return Delivery(flow: flow, step: step, token: token)
    }

    /// The visibility a presenter last reported for a presentable.
    func visibility(of presentable: PresentableID) -> Visibility {
        state.visibility[presentable] ?? .unknown
    }

    /// Decides a step's fate at once (no delivery pending).
    mutating func decide(_ token: StepToken, step: Step, source: StepSource?, fate: StepFate) {
        state.tokens[token] = nil
        fateEvent(.stepFate(token: token, step: step, source: source, fate: fate))
    }

    /// What became of one delivery of a step.
    enum DeliveryOutcome {
        /// The flow navigated it; `declared` says whether the flow declares the step (``Flow/declares(_:)``).
        case navigated(declared: Bool)
        case dropped(DropReason)
    }

    /// Records one delivery's outcome; when it was the last one pending, the step's fate is decided.
    mutating func finish(_ delivery: Delivery, _ outcome: DeliveryOutcome) {
        // One lookup: the progress changes where it is kept, and is taken out once the step is decided.
        guard let index = state.tokens.index(forKey: delivery.token) else {
            return
        }
        if Self.note(outcome, of: delivery, in: &state.tokens.values[index]) <= 0 {
            decide(delivery.token, state.tokens.remove(at: index).value)
        }
    }

    /// Notes a delivery's outcome in its step's progress; returns how many deliveries are still pending.
    private static func note(_ outcome: DeliveryOutcome, of delivery: Delivery, in progress: inout TokenProgress) -> Int
    {
        progress.pending -= 1
        switch outcome {
        case .navigated(let declared):
            if declared {
                if !progress.accepted.contains(delivery.flow) {
                    progress.accepted.append(delivery.flow)
                }
            } else {
                progress.undeclared = true
            }
            if declared, let index = delivery.pathIndex, index == (progress.pathLength ?? 0) - 1 {
                progress.reachedEnd = true
            }
        case .dropped(let reason):
            progress.drop = progress.drop ?? reason
        }
        return progress.pending
    }

    /// Decides the fate of a step whose deliveries are all done.
    mutating func decideFate(_ token: StepToken) {
        guard let progress = state.tokens.removeValue(forKey: token) else {
            return
        }
        decide(token, progress)
    }

    /// The fate of a step whose deliveries are all done, its progress taken out already.
    private mutating func decide(_ token: StepToken, _ progress: TokenProgress) {
        let fate: StepFate
        if let pathLength = progress.pathLength {
            let last = pathLength > 0 ? progress.step.name : ""
            fate = progress.reachedEnd ? .accepted(flows: progress.accepted) : .dropped(.unhandled(step: last))
        } else if progress.accepted.isEmpty {
            // Navigated by flows that do not declare it: unhandled (unless one dropped it with a reason).
            fate = .dropped(
                progress.drop ?? (progress.undeclared == true ? .unhandled(step: progress.step.name) : .unboundStepper)
            )
        } else {
            fate = .accepted(flows: progress.accepted)
        }
        fateEvent(.stepFate(token: token, step: progress.step, source: progress.source, fate: fate))
    }
}
