import FlowWire

extension Coordinator {
    /// Takes the settings a reload changes in a running flowd (those `DaemonSetting.reloads` marks): the peers'
    /// rates, the session bounds, and the authorized keys with their grants. A registered peer whose key is no
    /// longer authorized, or whose new grant no longer covers its session or role, is unregistered (its next message
    /// is refused and its connection cut); the others keep going under their new grants.
    /// - Returns: the ids of the peers unregistered.
    public mutating func takeReloadedSettings(from new: DaemonConfiguration) -> [String] {
        setup.configuration.peerMessageRate = new.peerMessageRate
        setup.configuration.peerByteRate = new.peerByteRate
        setup.configuration.maxSessions = new.maxSessions
        setup.configuration.sessionsPerPeerPerMinute = new.sessionsPerPeerPerMinute
        setup.configuration.maxSteppersPerSession = new.maxSteppersPerSession
        // The secret key is flowd's identity: it changes with a restart only, and so does CURVE being on or off;
        // the WebSocket endpoint too.
        var curve = setup.configuration.curve
        if let reloaded = new.curve, reloaded.secretKey == curve?.secretKey {
            curve?.authorizedKeys = reloaded.authorizedKeys
            curve?.grants = reloaded.grants
            setup.configuration.curve = curve
        }
        let curveReloaded = curve != nil && new.curve?.secretKey == curve?.secretKey
        let tokensReloaded = setup.configuration.webSocket != nil && new.webSocket != nil
        if tokensReloaded {
            setup.configuration.webSocket?.tokens = new.webSocket?.tokens ?? []
        }
        var withdrawn: [String] = []
        for peer in peers.all.sorted(by: { $0.id < $1.id }) {
            let id = peer.id
            let authorized: Bool
            let grant: ClientGrant?
            if peers.webSocketIDs.contains(id) {
                guard tokensReloaded, let tokens = setup.configuration.webSocket?.tokens else { continue }
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
                peers.setGrant(grant, of: id)
            }
        }
        return withdrawn
    }
}
