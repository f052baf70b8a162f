import FlowWire

extension Coordinator {
    /// Takes the settings a reload changes in a running flowd (those ``DaemonSetting/reloads`` marks): the peers'
    /// rates, the session bounds, and the authorized keys with their grants. A registered peer whose key is no
    /// longer authorized, or whose new grant no longer covers its session or role, is unregistered (its next message
    /// is refused and its connection cut); the others keep going under their new grants.
    /// - Returns: the ids of the peers unregistered.
    public mutating func takeReloadedSettings(from new: DaemonConfiguration) -> [String] {
        configuration.peerMessageRate = new.peerMessageRate
        configuration.peerByteRate = new.peerByteRate
        configuration.maxSessions = new.maxSessions
        configuration.sessionsPerPeerPerMinute = new.sessionsPerPeerPerMinute
        configuration.maxSteppersPerSession = new.maxSteppersPerSession
        // The secret key is flowd's identity: it changes with a restart only, and so does CURVE being on or off.
        guard var curve = configuration.curve, let reloaded = new.curve, reloaded.secretKey == curve.secretKey else {
            return []
        }
        curve.authorizedKeys = reloaded.authorizedKeys
        curve.grants = reloaded.grants
        configuration.curve = curve
        var withdrawn: [String] = []
        for (id, peer) in peers.sorted(by: { $0.key < $1.key }) {
            let grant = curve.grants[id]
            let covered =
                grant.map { grant in
                    grant.allows(peer.role) && (peer.session.map { grant.covers($0.rawValue) } ?? true)
                } ?? true
            if curve.authorizedKeys[id] == nil || !covered {
                unregister(id, reason: "its key is no longer authorized for this (configuration reloaded)")
                withdrawn.append(id)
            } else {
                peers[id]?.grant = grant
            }
        }
        return withdrawn
    }
}
