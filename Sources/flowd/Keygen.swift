import ArgumentParser
import FlowDaemon
import Foundation
import ZeroMQ

/// `flowd keygen`: a new CURVE key pair, for flowd or for a client; or, with `--token`, a WebSocket token.
struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a new CURVE key pair (Z85), or a new WebSocket token (--token ID).",
        discussion: """
            Give the secret key to flowd (--curve-secret-key or curveSecretKey:) and its public key to clients; \
            authorize each client's public key under its id (--authorize ID=KEY or authorizedKeys:).

            With --token ID, it prints a line of a WebSocket tokens file instead: ID=TOKEN, 32 random bytes in \
            base64url, with the grant --grant gives (SESSIONS[:ROLES], as --authorize takes it). Append it to the \
            file flowd reads (--websocket-tokens-file), and give the token to the client whose id is ID.

            Examples:
              flowd keygen
              flowd keygen --token kiosk-7/main --grant kiosk-7:presenter >> /etc/flowbus/websocket-tokens
            """
    )

    @Option(help: "Print a WebSocket token for this client id instead of a key pair.")
    var token: String?

    @Option(help: "With --token: the sessions and roles it is granted, as SESSIONS[:ROLES] (kiosk-7:presenter).")
    var grant: String?

    func validate() throws {
        if grant != nil && token == nil {
            throw ValidationError("--grant goes with --token ID")
        }
        if let token, token.isEmpty || token.contains("=") || token.contains(where: \.isWhitespace) {
            throw ValidationError("--token takes the client's id (no '=' and no space), not '\(token)'")
        }
        if let grant {
            do {
                _ = try ClientGrant(parsing: grant)
            } catch {
                throw ValidationError("--grant: \(error)")
            }
        }
    }

    func run() throws {
        guard let token else {
            let pair = try CurveKeyPair.generate()
            print("public: \(pair.publicKey.z85)")
            print("secret: \(pair.secretKey.z85)")
            return
        }
        var bytes = [UInt8](repeating: 0, count: 32)
        guard getentropy(&bytes, bytes.count) == 0 else {
            throw ValidationError("the system gives no random bytes (getentropy failed)")
        }
        let secret = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        print("\(token)=\(secret)" + (grant.map { ":\($0)" } ?? ""))
    }
}
