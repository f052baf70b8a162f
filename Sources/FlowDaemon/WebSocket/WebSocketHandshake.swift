import FlowWire

/// What flowd decides about a WebSocket handshake, before anything of the connection reaches the coordinator: the
/// path, the subprotocol, the page's Origin, where it comes from, the peer's id and its token.
///
/// A request that is not for flowd's endpoint, from a foreign page or from another machine without a token, is
/// refused with an HTTP status (a browser's page sees only that it failed; flowd logs why). One that is for the
/// endpoint but names no usable id or token is taken and closed at once with a close code and a reason, which a
/// client's code can read and show.
struct WebSocketHandshake: Sendable, Equatable {
    /// The decision.
    enum Decision: Sendable, Equatable {
        /// Upgrade: the connection is peer `id`, authenticated as `userID` (its token's id; `nil` without tokens).
        case accept(id: String, userID: String?)
        /// Upgrade, then close at once with `code` and `reason` (the client can read both).
        case acceptThenClose(code: UInt16, reason: String)
        /// Answer with an HTTP status and `reason` as the body; no upgrade.
        case refuse(status: Int, reason: String)
    }

    /// The request's path and query (`/flowbus?id=kiosk-7%2Fmain`).
    var uri: String
    /// Its `Origin` header, if any (browsers send one).
    var origin: String?
    /// Its `Sec-WebSocket-Protocol` entries.
    var subprotocols: [String]
    /// Its `Authorization` header, if any.
    var authorization: String?
    /// Whether it comes from this machine.
    var fromLoopback: Bool

    /// Decides the handshake against the endpoint's settings and the tokens in effect.
    func decide(settings: WebSocketSettings, tokens: WebSocketTokenTable) -> Decision {
        let (path, query) = Self.split(uri)
        guard path == WebSocketText.path else {
            return .refuse(status: 404, reason: "flowd's WebSocket endpoint is \(WebSocketText.path)?id=YOUR_ID")
        }
        guard subprotocols.contains(WebSocketText.subprotocol) else {
            return .refuse(
                status: 400,
                reason:
                    "ask for the subprotocol \(WebSocketText.subprotocol) (new WebSocket(url, [\"\(WebSocketText.subprotocol)\"]))"
            )
        }
        if let origin, !settings.allows(origin: origin) {
            return .refuse(
                status: 403,
                reason: "pages of \(origin.prefix(128)) may not connect (flowd's websocketOrigins)"
            )
        }
        if tokens.isEmpty && !fromLoopback {
            return .refuse(
                status: 403,
                reason: "without tokens, flowd takes WebSocket connections from this machine only"
            )
        }
        guard let id = Self.parameter("id", in: query), !id.isEmpty else {
            return .acceptThenClose(
                code: WebSocketCloseCode.badRequest,
                reason: "name your id in the URL: \(WebSocketText.path)?id=YOUR_ID"
            )
        }
        if id.utf8.count > WireLimits.maxIdentifierLength || ControlCharacters.first(in: id) != nil {
            return .acceptThenClose(
                code: WebSocketCloseCode.badRequest,
                reason: "an id is printable text of at most \(WireLimits.maxIdentifierLength) bytes"
            )
        }
        guard !tokens.isEmpty else {
            return .accept(id: id, userID: nil)
        }
        guard let presented = presentedToken else {
            return .acceptThenClose(
                code: WebSocketCloseCode.unauthorized,
                reason:
                    "flowd asks for a token: the subprotocol \(WebSocketText.tokenSubprotocolPrefix)TOKEN, or Authorization: Bearer TOKEN"
            )
        }
        guard let tokenID = tokens.id(of: presented) else {
            return .acceptThenClose(code: WebSocketCloseCode.unauthorized, reason: "flowd does not know this token")
        }
        guard tokenID == id else {
            return .acceptThenClose(
                code: WebSocketCloseCode.idNotAllowed,
                reason: "this token is for '\(tokenID.prefix(128))', not '\(id.prefix(128))'"
            )
        }
        return .accept(id: id, userID: tokenID)
    }

    /// The token the request presents: in a subprotocol entry, else as a bearer token.
    var presentedToken: String? {
        if let entry = subprotocols.first(where: { $0.hasPrefix(WebSocketText.tokenSubprotocolPrefix) }) {
            return String(entry.dropFirst(WebSocketText.tokenSubprotocolPrefix.count))
        }
        if let authorization, authorization.lowercased().hasPrefix("bearer ") {
            return String(authorization.dropFirst("bearer ".count)).trimmingSpaces
        }
        return nil
    }

    /// A URI's path and query.
    static func split(_ uri: String) -> (path: Substring, query: Substring) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri[...], "") }
        return (uri[..<mark], uri[uri.index(after: mark)...])
    }

    /// A query parameter's value, percent-decoded (`+` is a space); `nil` when absent or not valid UTF-8.
    static func parameter(_ name: String, in query: Substring) -> String? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0] == name[...] else { continue }
            return percentDecoded(parts.count > 1 ? parts[1] : "")
        }
        return nil
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let high = utf8.index(after: index)
                guard high < utf8.endIndex, utf8.index(after: high) < utf8.endIndex,
                    let value = UInt8(
                        String(decoding: [utf8[high], utf8[utf8.index(after: high)]], as: UTF8.self),
                        radix: 16
                    )
                else { return nil }
                bytes.append(value)
                index = utf8.index(high, offsetBy: 2)
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = utf8.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// The close codes flowd sends a WebSocket peer, besides the standard ones (1001 going away when flowd stops, 1003
/// for a binary message, 1008 for a subscription beyond the bounds, 1009 for a message too big).
enum WebSocketCloseCode {
    /// The URL names no usable id.
    static let badRequest: UInt16 = 4400
    /// No token, or one flowd does not know (or no longer: a reload withdrew it).
    static let unauthorized: UInt16 = 4401
    /// The token is another id's.
    static let idNotAllowed: UInt16 = 4403
    /// Nothing came back from the peer (not even a pong) for the heartbeat timeout.
    static let silent: UInt16 = 4408
    /// Another connection took this id (a page reloaded, the same client connected again).
    static let replaced: UInt16 = 4409
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = self[...]
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
