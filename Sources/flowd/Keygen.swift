import ArgumentParser
import ZeroMQ

/// `flowd keygen`: a new CURVE key pair, for flowd or for a client.
struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a new CURVE key pair (Z85).",
        discussion: """
            Give the secret key to flowd (--curve-secret-key or curveSecretKey:) and its public key to clients; \
            authorize each client's public key under its id (--authorize ID=KEY or authorizedKeys:).
            """
    )

    func run() throws {
        let pair = try CurveKeyPair.generate()
        print("public: \(pair.publicKey.z85)")
        print("secret: \(pair.secretKey.z85)")
    }
}
