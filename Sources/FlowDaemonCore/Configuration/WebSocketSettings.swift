import Foundation

/// flowd's WebSocket endpoint (`--websocket HOST:PORT`): where it listens, which pages may open it, the tokens its
/// peers authenticate with, and its bounds. Off unless an address is given.
public struct WebSocketSettings: Sendable, Hashable {
    /// Where it listens.
    public var address: MetricsAddress
    /// The origins whose pages may connect (`https://kiosk.example`, `http://localhost:8080`), or `["*"]` for every
    /// one; `nil`: pages served from a loopback host (`localhost`, `127.x.x.x`, `[::1]`) only. A client that sends no
    /// Origin (not a browser) is not concerned.
    public var origins: [String]?
    /// The tokens peers authenticate with, each mapped to an id and a grant; empty: no token is asked for, and only
    /// connections from this machine are taken.
    public var tokens: [WebSocketToken] = [] {
        didSet {
            tokenIDs = Set(tokens.map(\.id))
            grants = Dictionary(
                tokens.compactMap { token in token.grant.map { (token.id, $0) } },
                uniquingKeysWith: { first, _ in first }
            )
        }
    }
    /// The ids tokens are given to (kept with ``tokens``: looked up for every message of a WebSocket peer).
    public private(set) var tokenIDs: Set<String> = []
    /// The grant of each token's id that has one (the others may do everything), as CURVE's grants are kept.
    public private(set) var grants: [String: ClientGrant] = [:]
    /// The most WebSocket connections open at once; beyond, a handshake is answered 503.
    public var maxConnections = 1024

    /// An endpoint at `address`, with the default origins and bounds and no tokens.
    /// - Parameter address: where it listens.
    public init(address: MetricsAddress) {
        self.address = address
    }

    /// Whether a page of `origin` (an `Origin` header: `scheme://host[:port]`) may connect.
    /// - Parameter origin: the header's value as sent.
    public func allows(origin: String) -> Bool {
        guard let origins else { return Self.isLoopbackOrigin(origin) }
        return origins.contains("*") || origins.contains { $0.lowercased() == origin.lowercased() }
    }

    /// Whether `origin` names a page served from this machine: `http(s)://localhost`, `127.x.x.x` or `[::1]`, on any
    /// port.
    static func isLoopbackOrigin(_ origin: String) -> Bool {
        let lowered = origin.lowercased()
        guard let schemeEnd = lowered.range(of: "://") else { return false }
        var host = lowered[schemeEnd.upperBound...]
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            return host[host.index(after: host.startIndex)..<close] == "::1"
        }
        if let colon = host.firstIndex(of: ":") {
            host = host[..<colon]
        }
        return host == "localhost" || (host.hasPrefix("127.") && host.split(separator: ".").count == 4)
    }
}

/// A token a WebSocket peer authenticates with: the id it may say HELLO under, and what it may do.
public struct WebSocketToken: Sendable, Hashable {
    /// The id the token's holder says HELLO under (the connection's `id`).
    public var id: String
    /// The secret itself: 16 to 256 characters of base64url (`A`–`Z`, `a`–`z`, `0`–`9`, `-`, `_`).
    public var token: String
    /// The sessions and roles it is granted; `nil` for every session and every role.
    public var grant: ClientGrant?

    /// A token `token` for `id` with `grant`.
    /// - Parameters:
    ///   - id: the id its holder says HELLO under.
    ///   - token: the secret.
    ///   - grant: what it may do; `nil` for everything.
    public init(id: String, token: String, grant: ClientGrant? = nil) {
        self.id = id
        self.token = token
        self.grant = grant
    }

    /// Reads `ID=TOKEN[:SESSIONS[:ROLES]]`, as the tokens file and `FLOWD_WEBSOCKET_TOKENS` hold them.
    /// - Parameter entry: one entry.
    /// - Throws: ``ConfigurationError`` saying what the form is (without the token itself).
    public init(parsing entry: String) throws {
        let form =
            "a WebSocket token is ID=TOKEN (16 to 256 characters of A-Z, a-z, 0-9, - and _; `flowd keygen --token` makes one), optionally followed by :SESSIONS[:ROLES] (kiosk-7,kiosk-8:presenter)"
        guard let equals = entry.firstIndex(of: "=") else {
            throw ConfigurationError("\(form); an entry has no '='")
        }
        let id = String(entry[..<equals])
        let rest = entry[entry.index(after: equals)...]
        let token = rest.prefix(while: { $0 != ":" })
        guard !id.isEmpty else { throw ConfigurationError("\(form); an entry has no id") }
        guard Self.isWellFormed(token) else {
            throw ConfigurationError("\(form); the token of '\(id.prefix(64))' is not")
        }
        let grantText = rest.dropFirst(token.count)
        guard !grantText.isEmpty else {
            self.init(id: id, token: String(token))
            return
        }
        do {
            self.init(id: id, token: String(token), grant: try ClientGrant(parsing: String(grantText.dropFirst())))
        } catch {
            throw ConfigurationError("\(id.prefix(64))=…: \(error)")
        }
    }

    /// Whether `text` has a token's form.
    static func isWellFormed(_ text: Substring) -> Bool {
        (16...256).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }

    /// Reads the entries of a tokens file or variable: one per line (or separated by spaces); empty lines and lines
    /// starting with `#` are skipped.
    /// - Parameter text: the file's or the variable's text.
    /// - Throws: ``ConfigurationError`` naming the line of an entry that is not of the form, or an id given twice.
    package static func entries(in text: String) throws -> [WebSocketToken] {
        var tokens: [WebSocketToken] = []
        var ids: Set<String> = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            for entry in trimmed.split(separator: " ") {
                let token: WebSocketToken
                do {
                    token = try WebSocketToken(parsing: String(entry))
                } catch {
                    throw ConfigurationError("line \(index + 1): \(error)")
                }
                guard ids.insert(token.id).inserted else {
                    throw ConfigurationError(
                        "line \(index + 1): '\(token.id.prefix(64))' has a token already: one per id"
                    )
                }
                tokens.append(token)
            }
        }
        return tokens
    }
}
