import FlowWire

extension Coordinator {
    /// A WebSocket connection whose token a reload withdrew spoke: refused, and marked to be cut (``Reception/impostor``).
    mutating func refuseWithdrawnToken(_ frames: [[UInt8]], from peer: String) {
        turn.impostor = .unknownID
        Counters.bump(&counters.errors, ErrorCode.notAllowed.rawValue)
        logThrottled(
            "tokenWithdrawn",
            "a WebSocket connection of '\(LogText.quoted(peer))', whose token is no longer accepted, spoke: refused and closed",
            peer: peer
        )
        send(
            .error(
                ErrorReply(
                    .notAllowed,
                    message: "this connection's token is no longer accepted (flowd's configuration changed)"
                )
            ),
            to: peer,
            session: nil,
            correlation: (try? setup.codec.decode(frames))?.header.id,
            holding: false
        )
    }

    /// With CURVE, a message from a connection whose key is not (or no longer) authorized under the id it speaks
    /// with: refused, and the connection is to be cut (``Reception/impostor``). A key speaking under another key's id
    /// is also refused in the handshake for a while.
    mutating func refuseUnauthorizedConnection(
        _ frames: [[UInt8]],
        from peer: String,
        userID: String?,
        curve: CurveSettings
    ) {
        let withdrawn = userID == peer
        let othersID = !withdrawn && curve.authorizedKeys[peer] != nil
        turn.impostor = othersID ? .key(userID ?? "") : .unknownID
        peers.spokenByAnother(peer)
        let code = withdrawn ? ErrorCode.notAllowed : .idNotAllowed
        Counters.bump(&counters.errors, code.rawValue)
        let key = LogText.quoted(userID ?? "")
        let id = LogText.routingID(peer)
        let logged: String
        let message: String
        if withdrawn {
            logged = "a connection with the key of '\(key)', no longer authorized, spoke: refused and cut"
            message = "this connection's key is no longer authorized (flowd's configuration changed)"
        } else if othersID {
            logged =
                "a connection with the key of '\(key)' spoke under the id '\(id)': refused, cut, and its key refused a while"
            message =
                "this connection's key is registered for '\(key)', not '\(id)': set the DEALER's routing id to your key's id"
        } else {
            logged =
                "a connection with the key of '\(key)' spoke under the id '\(id)', which no key has: refused and cut"
            message =
                "this connection's key is registered for '\(key)', not '\(id)': set the DEALER's routing id to your key's id"
        }
        logThrottled(withdrawn ? "keyWithdrawn" : "idNotAllowed", logged, peer: userID ?? "")
        send(
            .error(ErrorReply(code, message: message)),
            to: peer,
            session: nil,
            correlation: (try? setup.codec.decode(frames))?.header.id,
            holding: false
        )
    }
}
