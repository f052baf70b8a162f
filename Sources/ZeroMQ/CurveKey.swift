internal import CZeroMQ

/// A 32-byte CURVE key (public or secret), with its 40-character Z85 text form.
public struct CurveKey: Sendable, Hashable, CustomStringConvertible {
    /// The size of a key in bytes.
    public static let byteCount = 32

    /// The key's 32 bytes.
    public let bytes: [UInt8]

    /// Creates a key from its 32 bytes.
    public init(bytes: [UInt8]) throws(ZeroMQError) {
        guard bytes.count == Self.byteCount else {
            throw ZeroMQError(.invalidKey, operation: "CurveKey", message: "a key has 32 bytes, not \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Creates a key from its 40-character Z85 text.
    public init(z85 text: String) throws(ZeroMQError) {
        guard text.utf8.count == 40 else {
            throw ZeroMQError(
                .invalidKey,
                operation: "CurveKey",
                message: "a Z85 key has 40 characters, not \(text.utf8.count)"
            )
        }
        try self.init(bytes: Z85.decode(text))
    }

    init(uncheckedBytes: [UInt8]) {
        bytes = uncheckedBytes
    }

    /// The key as 40 characters of Z85 text, the form used in configuration files.
    public var z85: String {
        // 32 bytes is a multiple of 4, so encoding cannot fail.
        (try? Z85.encode(bytes)) ?? ""
    }

    /// The Z85 text; printing a secret key prints the secret.
    public var description: String { z85 }
}

/// A CURVE public/secret key pair.
public struct CurveKeyPair: Sendable, Hashable {
    /// The key to give to peers.
    public let publicKey: CurveKey
    /// The key to keep.
    public let secretKey: CurveKey

    /// Generates a new random key pair.
    public static func generate() throws(ZeroMQError) -> CurveKeyPair {
        var publicText = [CChar](repeating: 0, count: 41)
        var secretText = [CChar](repeating: 0, count: 41)
        let result = zmq_curve_keypair(&publicText, &secretText)
        guard result == 0 else {
            throw ZeroMQError(.notSupported, operation: "zmq_curve_keypair", message: describe(zmq_errno()))
        }
        return CurveKeyPair(
            publicKey: try CurveKey(z85: text(publicText)),
            secretKey: try CurveKey(z85: text(secretText))
        )
    }

    /// The key pair of a secret key (the public key is derived from it).
    public init(secretKey: CurveKey) throws(ZeroMQError) {
        var publicText = [CChar](repeating: 0, count: 41)
        let result = zmq_curve_public(&publicText, secretKey.z85)
        guard result == 0 else {
            throw ZeroMQError(.notSupported, operation: "zmq_curve_public", message: describe(zmq_errno()))
        }
        self.init(publicKey: try CurveKey(z85: text(publicText)), secretKey: secretKey)
    }

    /// A key pair from both keys; the caller vouches that they belong together.
    public init(publicKey: CurveKey, secretKey: CurveKey) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }
}

extension Socket {
    /// Makes this socket a CURVE server with `secretKey`. Set it before `bind`. Clients are authenticated
    /// by the context's ``ZAPHandler`` when one runs; each message then carries the peer's ``Message/userID``.
    public func makeCurveServer(secretKey: CurveKey, domain: String = "flowbus") throws(ZeroMQError) {
        try setOption(.zapDomain, domain)
        try setOption(.curveServer, true)
        try setOption(.curveSecretKey, secretKey)
    }

    /// Makes this socket a CURVE client of the server whose public key is `serverKey`. Set it before `connect`.
    public func makeCurveClient(keyPair: CurveKeyPair, serverKey: CurveKey) throws(ZeroMQError) {
        try setOption(.curveServerKey, serverKey)
        try setOption(.curvePublicKey, keyPair.publicKey)
        try setOption(.curveSecretKey, keyPair.secretKey)
    }
}

/// The text before the terminating NUL of a C character buffer.
private func text(_ characters: [CChar]) -> String {
    String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
