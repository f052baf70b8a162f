import FlowCore

extension Coordinator {
    /// Ends a session: its flows end, its screens are dismissed, its peers' registrations end (the next message of
    /// each is answered `notRegistered`; one that says HELLO again starts the session anew), and flowd forgets it
    /// (the store too).
    mutating func endSession(_ session: SessionID) {
        apply(engine.endSession(session))
        for peer in peers.all.filter({ $0.session == session && $0.role != .inspector }).sorted(by: { $0.id < $1.id }) {
            unregister(peer.id, reason: "its session ended")
        }
        acknowledgements.forget(session)
        ledger.forget(session)
        if store.journal.isEnabled {
            store.journal.remove(session)
        }
        // Its row goes with the turn's group: a HELLO naming it again asks the fleet's store after that.
        fleet?.disowns(session)
    }

    /// Ends the sessions no peer has touched for ``DaemonConfiguration/idleSessionExpiry``: no peer registered in
    /// them, and no message for them since then (nor since this run of flowd started).
    mutating func endIdleSessions() {
        guard let expiry = setup.configuration.idleSessionExpiry?.milliseconds else { return }
        let idle = ledger.idleSessions(
            now: now,
            expiry: expiry,
            cutoff: time.wallNow - expiry,
            runStarted: time.startedAt + time.wallOffset,
            occupied: { peers.occupiedSessions }
        )
        for (session, lastActivity) in idle {
            setup.logger.info(
                "ended an idle session",
                metadata: ["session": "\(session)", "idleFor": "\((time.wallNow - lastActivity) / 1000) s"]
            )
            counters.sessionsExpired += 1
            endSession(session)
        }
    }
}
