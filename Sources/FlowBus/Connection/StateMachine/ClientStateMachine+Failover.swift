import FlowWire

extension ClientStateMachine {
    /// The instance the client connects to: one of the options' candidates, or the one a REDIRECT named.
    struct Link {
        /// Every instance to try, in order.
        let candidates: [Endpoints]
        var target: Endpoints
        /// Which of the candidates was tried last.
        var candidateIndex = 0

        init(candidates: [Endpoints]) {
            self.candidates = candidates
            target = candidates[0]
        }

        /// Whether there is another instance to try when the one tried does not answer: several instances (a
        /// fleet), or one a REDIRECT named (the client goes back to the instance that sent it there).
        var failsOver: Bool {
            candidates.count > 1 || target != candidates[candidateIndex]
        }

        /// Moves on to the next candidate (from an instance a REDIRECT named: back to the one that sent it there).
        mutating func next() {
            if target == candidates[candidateIndex] {
                candidateIndex = (candidateIndex + 1) % candidates.count
            }
            target = candidates[candidateIndex]
        }
    }

    /// How long a client with several instances to try waits for the one it tries before it tries the next.
    var failoverDelay: Duration {
        max(.milliseconds(500), setup.options.reconnectInterval * 5)
    }

    /// When the client, unregistered, tries the next instance; `nil` when there is none to try.
    var failoverDeadline: Instant? {
        guard !registration.registered, link.failsOver, let since = registration.unregisteredSince else { return nil }
        return since.advanced(by: failoverDelay)
    }

    /// Unregistered for too long where there is another instance: tries it.
    /// - Returns: whether the connections were replaced.
    mutating func failOver(now: Instant) -> Bool {
        guard let deadline = failoverDeadline, now >= deadline else { return false }
        link.next()
        log(.info, "flowd did not answer; trying the instance at \(link.target.control)")
        replaceConnections(now: now)
        return true
    }

    /// Sent to the instance of a fleet that serves the session: connect there and say HELLO again.
    mutating func redirected(_ redirect: Redirect, now: Instant) {
        // The endpoints of the transport the client uses now, if the instance has one (ipc on one machine, tcp
        // across machines); else its first.
        guard
            let next = Endpoints.preferred(
                control: redirect.control,
                events: redirect.events,
                like: link.target.control
            )
        else {
            log(.info, "flowd sent this client to instance \(redirect.instance), which has no endpoints")
            return
        }
        log(
            .info,
            "session \(redirect.session) is served by instance \(redirect.instance): connecting to \(next.control)"
        )
        link.target = next
        replaceConnections(now: now)
    }
}
