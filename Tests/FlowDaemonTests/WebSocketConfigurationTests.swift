import FlowBusTesting
import Foundation
import Testing
import ZeroMQ

@testable import FlowDaemon

/// The WebSocket endpoint's settings as operators write them, and what does not fit is refused with where it came
/// from. Tried: a non-loopback address without tokens, CURVE without tokens, tokens given two ways, a token too
/// short or with a character base64url does not have, an entry without `=`, an id twice, a bad grant, a tokens file
/// that cannot be read, related settings without the endpoint, an origin with a path, and a CURVE key and a token
/// of one id with different grants.
@Suite struct WebSocketConfigurationTests {
    private let environment = ["XDG_RUNTIME_DIR": "/run/user/7"]
    private let token = "0123456789abcdef_-XY"

    private func configuration(_ values: [(DaemonSetting, String)]) throws -> DaemonConfiguration {
        var settings = DaemonSettings()
        for (setting, value) in values {
            settings.set(setting, setting == .websocketMaxConnections ? .number(Int(value) ?? 0) : .text(value))
        }
        return try DaemonConfiguration(settings, environment: environment)
    }

    private func refusal(_ values: [(DaemonSetting, String)]) -> String {
        do {
            _ = try configuration(values)
            return "taken"
        } catch {
            return "\(error)"
        }
    }

    @Test func theEndpointIsOffUnlessAnAddressIsGivenAndLoopbackWithoutTokens() throws {
        #expect(try configuration([]).webSocket == nil)
        let local = try #require(try configuration([(.websocket, "127.0.0.1:5862")]).webSocket)
        #expect(local.address == MetricsAddress(host: "127.0.0.1", port: 5862))
        #expect(local.tokens.isEmpty && local.origins == nil && local.maxConnections == 1024)
        #expect(try configuration([(.websocket, "[::1]:0")]).webSocket?.address.isLoopback == true)
        #expect(refusal([(.websocket, "0.0.0.0:5862")]).contains("is not a loopback address"))
        #expect(refusal([(.websocket, "5862")]).contains("websocket (--websocket) takes HOST:PORT"))
        #expect(refusal([(.websocketOrigins, "*")]).contains("means nothing without the WebSocket endpoint"))
    }

    @Test func tokensComeFromTheEnvironmentOrAFileNeverBoth() throws {
        let inline = try configuration([
            (.websocket, "0.0.0.0:5862"),
            (.websocketTokens, "# kiosk tokens\nkiosk-7/main=\(token):kiosk-7:presenter\n\nwall=\(token)x\n"),
        ])
        let tokens = try #require(inline.webSocket?.tokens)
        #expect(tokens.map(\.id) == ["kiosk-7/main", "wall"])
        #expect(tokens[0].grant == ClientGrant(sessions: ["kiosk-7"], roles: [.presenter]))
        #expect(tokens[1].grant == nil)
        #expect(inline.webSocket?.grants["kiosk-7/main"] != nil)

        let scratch = ScratchDirectory()
        let path = scratch.path + "/tokens"
        try "wall=\(token)\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(
            try configuration([(.websocket, "127.0.0.1:1"), (.websocketTokensFile, path)]).webSocket?.tokens.count == 1
        )
        #expect(
            refusal([(.websocket, "127.0.0.1:1"), (.websocketTokensFile, path), (.websocketTokens, "a=\(token)")])
                .contains("not both")
        )
        #expect(
            refusal([(.websocket, "127.0.0.1:1"), (.websocketTokensFile, scratch.path + "/none")])
                .contains("cannot read the WebSocket tokens file")
        )
    }

    @Test func aTokenOfTheWrongFormIsRefusedWithoutShowingIt() {
        let cases = [
            ("a=short", "16 to 256 characters"),
            ("a=\(token)!", "16 to 256 characters"),
            ("no-equals-sign", "has no '='"),
            ("=\(token)", "has no id"),
            ("a=\(token)\na=\(token)", "line 2: 'a' has a token already"),
            ("a=\(token):kiosk-7:wizard", "a=…"),
        ]
        for (entry, expected) in cases {
            let said = refusal([(.websocket, "127.0.0.1:1"), (.websocketTokens, entry)])
            #expect(said.contains(expected), "\(entry): \(said)")
            #expect(!said.contains(token), "the token is shown: \(said)")
        }
    }

    @Test func originsAreListedAsBrowsersSendThem() throws {
        let listed = try #require(
            try configuration([
                (.websocket, "127.0.0.1:1"), (.websocketOrigins, "https://kiosk.example, http://localhost:8080"),
            ])
            .webSocket
        )
        #expect(listed.allows(origin: "https://kiosk.example"))
        #expect(listed.allows(origin: "HTTP://LOCALHOST:8080"))
        #expect(!listed.allows(origin: "http://localhost:9000"))
        let byDefault = try #require(try configuration([(.websocket, "127.0.0.1:1")]).webSocket)
        for origin in ["http://localhost:3000", "http://127.0.0.1", "https://[::1]:8443"] {
            #expect(byDefault.allows(origin: origin), "\(origin)")
        }
        for origin in ["https://evil.example", "http://localhost.evil.example", "null", "http://127.0.0.1.nip.io"] {
            #expect(!byDefault.allows(origin: origin), "\(origin)")
        }
        #expect(
            refusal([(.websocket, "127.0.0.1:1"), (.websocketOrigins, "https://kiosk.example/app")]).contains(
                "scheme://host"
            )
        )
    }

    @Test func withCurveTokensAreRequiredAndGrantsAgree() throws {
        let server = try CurveKeyPair.generate()
        let client = try CurveKeyPair.generate()
        var settings = DaemonSettings()
        settings.set(.curveSecretKey, .text(server.secretKey.z85))
        settings.set(.websocket, .text("127.0.0.1:1"))
        #expect(throws: ConfigurationError.self) { try DaemonConfiguration(settings, environment: environment) }
        settings.set(.authorizedKeys, .authorizations([ClientAuthorization(id: "kiosk", key: client.publicKey.z85)]))
        settings.set(.websocketTokens, .text("kiosk=\(token):kiosk-7:presenter"))
        do {
            _ = try DaemonConfiguration(settings, environment: environment)
            Issue.record("a key and a token of one id with different grants were taken")
        } catch {
            #expect("\(error)".contains("different grants"))
        }
        settings.set(.websocketTokens, .text("kiosk=\(token)"))
        #expect(try DaemonConfiguration(settings, environment: environment).webSocket?.tokens.count == 1)
    }

    @Test func tokensAreComparedWholeWhateverMatches() {
        let table = WebSocketTokenTable([
            WebSocketToken(id: "a", token: token), WebSocketToken(id: "b", token: token + "b"),
        ])
        #expect(table.id(of: token) == "a")
        #expect(table.id(of: token + "b") == "b")
        #expect(table.id(of: String(token.dropLast())) == nil)
        #expect(table.id(of: "") == nil)
        #expect(!WebSocketTokenTable.equalInConstantTime(Array("ab".utf8), Array("abc".utf8)))
        #expect(WebSocketTokenTable.equalInConstantTime([], []))
        table.replace(with: [])
        #expect(table.isEmpty && table.id(of: token) == nil)
    }
}
