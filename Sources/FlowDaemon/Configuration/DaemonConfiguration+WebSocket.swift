import FlowSpec
import Foundation

extension DaemonConfiguration {
    /// The WebSocket endpoint as `settings` give it; `nil` without an address. Tokens come from a file
    /// (`websocketTokensFile`) or from the environment or the configuration file (`websocketTokens`), never from a
    /// flag. Without tokens the endpoint must be on a loopback address (it takes connections from this machine
    /// only), and with CURVE it must have tokens (its peers would escape the grants).
    /// - Throws: ``ConfigurationError`` naming the setting at fault.
    static func webSocket(_ settings: DaemonSettings, curve: CurveSettings?) throws -> WebSocketSettings? {
        let related: [DaemonSetting] = [
            .websocketOrigins, .websocketTokensFile, .websocketTokens, .websocketMaxConnections,
        ]
        guard let text = settings.text(.websocket) else {
            if let given = related.first(where: { settings[$0] != nil }) {
                throw ConfigurationError(
                    "\(settings.naming(given)) means nothing without the WebSocket endpoint (websocket, --websocket HOST:PORT)"
                )
            }
            return nil
        }
        var webSocket: WebSocketSettings
        do {
            webSocket = WebSocketSettings(address: try MetricsAddress(parsing: text, for: .websocket))
        } catch {
            let source = settings.source(of: .websocket)
            throw ConfigurationError("\(error)\(source == .builtIn ? "" : " (given by \(source))")")
        }
        if let origins = settings.text(.websocketOrigins) {
            webSocket.origins = try WebSocketSettings.origins(parsing: origins)
        }
        webSocket.maxConnections = settings.number(.websocketMaxConnections) ?? webSocket.maxConnections
        webSocket.tokens = try tokens(settings)
        if webSocket.tokens.isEmpty && !webSocket.address.isLoopback {
            throw ConfigurationError(
                "\(settings.naming(.websocket)) \(webSocket.address) is not a loopback address, and no WebSocket token is given: anyone who reaches it could step and present. Give tokens (websocketTokensFile, --websocket-tokens-file, or FLOWD_WEBSOCKET_TOKENS), or listen on 127.0.0.1 behind a reverse proxy"
            )
        }
        if curve != nil && webSocket.tokens.isEmpty {
            throw ConfigurationError(
                "with CURVE, the WebSocket endpoint needs tokens too (websocketTokensFile, --websocket-tokens-file, or FLOWD_WEBSOCKET_TOKENS): its peers would otherwise escape the keys' grants"
            )
        }
        // One id, one grant, whichever way its client connects.
        if let curve {
            for token in webSocket.tokens
            where curve.authorizedKeys[token.id] != nil && curve.grants[token.id] != token.grant {
                throw ConfigurationError(
                    "'\(token.id.prefix(64))' has a CURVE key and a WebSocket token with different grants: give both the same"
                )
            }
        }
        return webSocket
    }

    /// The tokens given: the file's, or the environment's (or the configuration file's), not both.
    private static func tokens(_ settings: DaemonSettings) throws -> [WebSocketToken] {
        let inline = settings.text(.websocketTokens)
        guard let path = settings.text(.websocketTokensFile) else {
            guard let inline else { return [] }
            do {
                return try WebSocketToken.entries(in: inline)
            } catch {
                throw ConfigurationError("\(settings.naming(.websocketTokens)): \(error)")
            }
        }
        guard inline == nil else {
            throw ConfigurationError(
                "give the WebSocket tokens one way: \(settings.naming(.websocketTokensFile)) or \(settings.naming(.websocketTokens)), not both"
            )
        }
        let text: String
        do {
            text = String(decoding: try FileReading.data(path), as: UTF8.self)
        } catch {
            throw ConfigurationError("cannot read the WebSocket tokens file \(path): \(error.reason)")
        }
        do {
            return try WebSocketToken.entries(in: text)
        } catch {
            throw ConfigurationError("the WebSocket tokens file \(path), \(error)")
        }
    }
}
