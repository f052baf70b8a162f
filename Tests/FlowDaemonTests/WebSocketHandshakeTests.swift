import Testing

@testable import FlowDaemon

/// What flowd decides about a WebSocket handshake. Tried: another path, no subprotocol, a foreign Origin, another
/// machine without tokens, no id, an empty id, a percent-encoded id, a broken percent escape, an id with a control
/// character, no token, an unknown token, another id's token, a token as a bearer header, and as a subprotocol.
@Suite struct WebSocketHandshakeTests {
    private let token = "0123456789abcdef0123"

    private func decide(
        _ uri: String,
        origin: String? = nil,
        subprotocols: [String] = ["flowbus.v1"],
        authorization: String? = nil,
        fromLoopback: Bool = true,
        tokens: [WebSocketToken] = []
    ) -> WebSocketHandshake.Decision {
        WebSocketHandshake(
            uri: uri,
            origin: origin,
            subprotocols: subprotocols,
            authorization: authorization,
            fromLoopback: fromLoopback
        ).decide(
            settings: WebSocketSettings(address: MetricsAddress(host: "127.0.0.1", port: 1)),
            tokens: WebSocketTokenTable(tokens)
        )
    }

    private func status(_ decision: WebSocketHandshake.Decision) -> Int? {
        if case .refuse(let status, _) = decision { status } else { nil }
    }

    private func closeCode(_ decision: WebSocketHandshake.Decision) -> UInt16? {
        if case .acceptThenClose(let code, _) = decision { code } else { nil }
    }

    @Test func requestsNotForTheEndpointAreRefusedBeforeTheUpgrade() {
        #expect(status(decide("/other?id=a")) == 404)
        #expect(status(decide("/flowbus?id=a", subprotocols: [])) == 400)
        #expect(status(decide("/flowbus?id=a", origin: "https://evil.example")) == 403)
        #expect(status(decide("/flowbus?id=a", fromLoopback: false)) == 403)
        #expect(decide("/flowbus?id=a", origin: "http://localhost:8080") == .accept(id: "a", userID: nil))
    }

    @Test func theIdIsTheURLsPercentDecoded() {
        #expect(decide("/flowbus?x=1&id=kiosk-7%2Fmain") == .accept(id: "kiosk-7/main", userID: nil))
        for uri in [
            "/flowbus", "/flowbus?id=", "/flowbus?id=%zz", "/flowbus?id=a%0Ab",
            "/flowbus?id=" + String(repeating: "x", count: 129),
        ] {
            #expect(closeCode(decide(uri)) == WebSocketCloseCode.badRequest, "\(uri)")
        }
    }

    @Test func withTokensEachConnectionPresentsItsIdsToken() {
        let tokens = [WebSocketToken(id: "kiosk-7/main", token: token), WebSocketToken(id: "app", token: token + "a")]
        let uri = "/flowbus?id=kiosk-7%2Fmain"
        #expect(closeCode(decide(uri, tokens: tokens)) == WebSocketCloseCode.unauthorized)
        #expect(
            closeCode(decide(uri, subprotocols: ["flowbus.v1", "flowbus.token.nope-nope-nope-nope"], tokens: tokens))
                == WebSocketCloseCode.unauthorized
        )
        #expect(
            closeCode(decide(uri, subprotocols: ["flowbus.v1", "flowbus.token.\(token)a"], tokens: tokens))
                == WebSocketCloseCode.idNotAllowed
        )
        #expect(
            decide(uri, subprotocols: ["flowbus.v1", "flowbus.token.\(token)"], fromLoopback: false, tokens: tokens)
                == .accept(id: "kiosk-7/main", userID: "kiosk-7/main")
        )
        #expect(
            decide(uri, authorization: "Bearer \(token)", fromLoopback: false, tokens: tokens)
                == .accept(id: "kiosk-7/main", userID: "kiosk-7/main")
        )
    }
}
