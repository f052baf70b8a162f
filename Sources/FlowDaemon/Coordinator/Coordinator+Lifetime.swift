import FlowCore

extension Coordinator {
    /// How often idle sessions are looked for (milliseconds).
    static let idleCheckInterval: Int64 = 10_000

    /// Ends a session: its flows end, its screens are dismissed, its peers' registrations end (the next message of
    /// each is answered `notRegistered`; one that says HELLO again starts the session anew), and flowd forgets it
    /// (the store too).
    mutating func endSession(_ session: SessionID) {
        apply(engine.endSession(session))
        for (id, peer) in peers where peer.session == session && peer.role != .inspector {
            unregister(id, reason: "its session ended")
        }
        commandSequences[session] = nil
        pending[session] = nil
        recentDrops[session] = nil
        steppers.removeSession(session)
        activity[session] = nil
        if journal.isEnabled {
            journal.remove(session)
        }
        // Its row goes with the turn's group: a HELLO naming it again asks the fleet's store after that.
        fleet?.owned.remove(session)
    }

    /// Ends the sessions no peer has touched for ``DaemonConfiguration/idleSessionExpiry``: no peer registered in
    /// them, and no message for them since then (nor since this run of flowd started).
    mutating func endIdleSessions() {
        guard let expiry = configuration.idleSessionExpiry?.milliseconds,
            now - lastIdleCheck >= min(Self.idleCheckInterval, expiry)
        else { return }
        lastIdleCheck = now
        let started = startedAt + wallOffset
        let cutoff = wallNow - expiry
        let occupied = Set(peers.values.compactMap(\.session))
        let idle = activity.filter { session, activity in
            !occupied.contains(session) && max(activity.lastActivity, started) <= cutoff
        }
        // At most a thousand a check: ending many sessions at once must not stall the loop (the rest go next time).
        for session in idle.keys.sorted().prefix(1000) {
            logger.info(
                "ended an idle session",
                metadata: ["session": "\(session)", "idleFor": "\((wallNow - idle[session]!.lastActivity) / 1000) s"]
            )
            counters.sessionsExpired += 1
            endSession(session)
        }
    }
}
