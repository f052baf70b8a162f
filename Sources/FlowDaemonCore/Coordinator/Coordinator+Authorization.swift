import FlowCore
import FlowWire

extension Coordinator {
    /// What a CURVE key's or a WebSocket token's id is granted; `nil`: everything (neither CURVE nor tokens, or an
    /// id without a grant). An id with both has the same grant in both (the configuration says so).
    func grant(for userID: String?) -> ClientGrant? {
        userID.flatMap { setup.configuration.curve?.grants[$0] ?? setup.configuration.webSocket?.grants[$0] }
    }

    /// Why `peer` may not read (or, `acting`, change) `session`; `nil` when it may.
    func authorizationRefusal(of peer: Peer, in session: SessionID, acting: Bool) -> String? {
        guard let grant = peer.grant else { return nil }
        guard grant.covers(session.rawValue) else {
            return "your key is not granted session \(LogText.quoted(session.rawValue))"
        }
        if acting && peer.role == .inspector && !grant.controls {
            return "your key lets you read session \(LogText.quoted(session.rawValue)), not act in it (grant control)"
        }
        return nil
    }

    /// Why a peer whose key has a grant may not send `message` in its role; `nil` when it may. The roles are
    /// FlowWire's ``MessageRule`` table's (steppers, presenters and inspectors step, link and set data; only
    /// presenters report visibility; only inspectors query; presenters and inspectors ask for snapshots; guards only
    /// answer), and a presenter steps as one of its screens. (A key without a grant may do everything.)
    func roleRefusal(of peer: Peer, for message: Message) -> String? {
        guard peer.grant != nil else { return nil }
        let rule = message.type.rule
        // What flowd never receives is answered `unexpectedMessage` by the dispatcher, granted or not.
        guard rule.receivedByDaemon else { return nil }
        guard rule.senders.contains(peer.role) else {
            let senders = Role.allCases.filter(rule.senders.contains).map { $0.rawValue + "s" }
            return
                "a \(peer.role.rawValue) may not send \(message.type.rawValue): it is for \(senders.joined(separator: ", "))"
        }
        if case .step(let step) = message, peer.role == .presenter, step.presentable == nil {
            return "a presenter steps as one of its screens: name the presentable"
        }
        return nil
    }

    /// Why a HELLO may not register as it asks; `nil` when it may.
    func registrationRefusal(_ hello: Hello, grant: ClientGrant?) -> String? {
        guard let grant else { return nil }
        guard grant.allows(hello.role) else {
            return "your key is not granted the role \(hello.role.rawValue)"
        }
        if let session = hello.session, !grant.covers(session) {
            return "your key is not granted session \(LogText.quoted(session))"
        }
        return nil
    }

    /// Whether the subscriber with CURVE user id `userID` may subscribe to `topic` (always without CURVE); over
    /// WebSocket (`overWebSocket`), `userID` is its token's id, and without tokens it may.
    public func allowsSubscription(_ topic: [UInt8], userID: String?, overWebSocket: Bool = false) -> Bool {
        if overWebSocket {
            guard let tokenIDs = setup.configuration.webSocket?.tokenIDs, !tokenIDs.isEmpty else { return true }
            guard let userID, tokenIDs.contains(userID) else { return false }
        } else {
            guard setup.configuration.curve != nil else { return true }
            guard let userID, setup.configuration.curve?.authorizedKeys[userID] != nil else { return false }
        }
        guard let grant = grant(for: userID) else { return true }
        return grant.allowsSubscription(String(decoding: topic, as: UTF8.self))
    }

    /// A subscription was refused: counted (`errors.notAllowed`) and logged at most once a second.
    public mutating func subscriptionRefused(_ topic: [UInt8], userID: String?) {
        Counters.bump(&counters.errors, ErrorCode.notAllowed.rawValue)
        logThrottled(
            "subscriptionRefused",
            "refused a subscription to '\(LogText.quoted(String(decoding: topic, as: UTF8.self)))': its key is not granted it",
            peer: userID ?? "no key"
        )
    }
}
