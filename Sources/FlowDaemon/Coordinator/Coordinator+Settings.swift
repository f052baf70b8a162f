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
        // The secret key is flowd's identity: it changes with a restart only, and so does CURVE being on or off;
        // the WebSocket endpoint too.
        var curve = configuration.curve
        if let reloaded = new.curve, reloaded.secretKey == curve?.secretKey {
            curve?.authorizedKeys = reloaded.authorizedKeys
            curve?.grants = reloaded.grants
            configuration.curve = curve
        }
        let curveReloaded = curve != nil && new.curve?.secretKey == curve?.secretKey
        let tokensReloaded = configuration.webSocket != nil && new.webSocket != nil
        if tokensReloaded {
            configuration.webSocket?.tokens = new.webSocket?.tokens ?? []
        }
        var withdrawn: [String] = []
        for (id, peer) in peers.sorted(by: { $0.key < $1.key }) {
            let authorized: Bool
            let grant: ClientGrant?
            if webSocketPeers.contains(id) {
                guard tokensReloaded, let tokens = configuration.webSocket?.tokens else { continue }
                let token = tokens.first { $0.id == id }
                authorized = tokens.isEmpty || token != nil
                grant = token?.grant
            } else {
                guard curveReloaded, let curve else { continue }
                authorized = curve.authorizedKeys[id] != nil
                grant = curve.grants[id]
            }
            let covered =
                grant.map { grant in
                    grant.allows(peer.role) && (peer.session.map { grant.covers($0.rawValue) } ?? true)
                } ?? true
            if !authorized || !covered {
                unregister(id, reason: "its key or token is no longer authorized for this (configuration reloaded)")
                withdrawn.append(id)
            } else {
                peers[id]?.grant = grant
            }
        }
        return withdrawn
    }
}
