extension Session {
    /// Takes in a deep link: a path of one or more steps, each sent to every flow of the session, parents
    /// before children. The next step of a path goes out once everything the previous one caused is done, so
    /// a path can open nested flows in one go. Before the session is ready, the deep link waits (bounded).
    mutating func receiveDeepLink(_ path: [Step]) -> StepToken {
        let token = state.ids.nextToken()
        event(.deepLinkReceived(token: token, path: path))
        let last = path.last ?? .none
        guard !path.isEmpty else {
            decide(token, step: last, source: nil, fate: .dropped(.unhandled(step: "")))
            return token
        }
        if state.queue.count + state.idle.count >= options.maxQueuedSteps {
            decide(token, step: last, source: nil, fate: .dropped(.queueFull))
            return token
        }
        state.tokens[token] = TokenProgress(step: last, source: nil, pending: 1, pathLength: path.count)
        if state.flows[state.rootFlow]?.isReady == true {
            state.queue.append(.deepLink(token: token, path: path, index: 0))
            drain()
        } else if state.waitingDeepLinks.count < options.maxWaitingDeepLinks {
            state.waitingDeepLinks.append(
                WaitingDeepLink(token: token, path: path, deadline: now + options.deepLinkWait)
            )
            event(.deepLinkWaiting(token: token))
        } else {
            state.tokens[token] = nil
            decide(token, step: last, source: nil, fate: .dropped(.queueFull))
        }
        return token
    }

    /// Sends one step of a deep link's path to every live flow, and schedules the next step for when the
    /// queue is idle.
    ///
    /// Paths do not interleave: a deep link that comes while another's path is under way waits behind it.
    mutating func broadcast(token: StepToken, path: [Step], index: Int) {
        guard var progress = state.tokens[token] else {
            if state.activePath == token {
                state.activePath = nil
            }
            return
        }
        if index == 0, let active = state.activePath, active != token {
            state.idle.append(.deepLink(token: token, path: path, index: index))
            return
        }
        state.activePath = index + 1 < path.count ? token : nil
        let step = path[index]
        let targets = state.flowsInPreorder().filter { flows[$0]?.takesDeepLink(step) ?? true }
        progress.pending += targets.count - 1
        if index + 1 < path.count {
            progress.pending += 1
            state.idle.append(.deepLink(token: token, path: path, index: index + 1))
        }
        state.tokens[token] = progress
        let deliveries = targets.map {
            WorkItem.deliver(Delivery(flow: $0, step: step, token: token, pathIndex: index))
        }
        state.queue.insert(contentsOf: deliveries, at: 0)
        if progress.pending <= 0 {
            decideFate(token)
        }
    }

    /// The root became ready: deep links that waited go into the queue, in arrival order.
    mutating func releaseWaitingDeepLinks() {
        let waiting = state.waitingDeepLinks
        state.waitingDeepLinks = []
        for link in waiting {
            state.queue.append(.deepLink(token: link.token, path: link.path, index: 0))
        }
    }

    /// Moves time forward: deep links that waited too long are dropped, a guard that did not answer in time
    /// counts as a refusal.
    mutating func advance(to time: EngineTime) {
        now = time
        let (expired, waiting) = (
            state.waitingDeepLinks.filter { $0.deadline <= time }, state.waitingDeepLinks.filter { $0.deadline > time }
        )
        state.waitingDeepLinks = waiting
        for link in expired {
            state.tokens[link.token] = nil
            decide(link.token, step: link.path.last ?? .none, source: nil, fate: .dropped(.deepLinkExpired))
        }
        if let pending = state.pendingGuard, pending.deadline <= time {
            try? answerGuard(pending.id, allowed: false, timedOut: true)
        }
    }

    /// Ends the session: every flow ends and every step still waiting is dropped.
    mutating func end() {
        var batch = PendingBatch(flow: state.rootFlow, step: nil)
        // Every screen goes: each presenter's window root is dismissed with all it holds, whether or not its flow
        // restores its parent's screen when it ends.
        for (presenter, root) in state.screens.windowRoots.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            if let change = batch.run(.dismiss(root), for: presenter, on: &state.screens) {
                handleRemoved(change.removed, batch: &batch)
            }
        }
        endFlow(state.rootFlow, reason: "the session ended", batch: &batch)
        flush(batch)
        for token in state.tokens.keys.sorted() {
            if let progress = state.tokens[token] {
                decide(token, step: progress.step, source: progress.source, fate: .dropped(.sessionEnded))
            }
        }
        state.queue = []
        state.idle = []
        state.activePath = nil
        state.waitingDeepLinks = []
        state.pendingGuard = nil
        event(.sessionEnded)
    }
}
