import FlowWire
import ZeroMQ

extension CurveSettings {
    /// Checks that every key is a CURVE key in Z85 (40 characters) and every id is given.
    /// - Throws: ``ConfigurationError`` naming the first that is not.
    public func check() throws {
        guard (try? CurveKey(z85: secretKey)) != nil else {
            throw ConfigurationError(
                "the CURVE secret key is not a key: give the 40 Z85 characters `flowd keygen` prints as its secret"
            )
        }
        var idsByKey: [String: String] = [:]
        for (id, key) in authorizedKeys.sorted(by: { $0.key < $1.key }) {
            guard !id.isEmpty else {
                throw ConfigurationError("an authorized key has no client id")
            }
            // The id is what the client says in HELLO and sets as its routing id: one it could never say is refused.
            guard id.utf8.count <= WireLimits.maxIdentifierLength, !id.contains(where: \.isWhitespace) else {
                throw ConfigurationError(
                    "the client id '\(id.prefix(64))' cannot be said in HELLO: ids are at most \(WireLimits.maxIdentifierLength) bytes, without spaces"
                )
            }
            // A key is bound to one id: under two, only one would ever be used.
            if let other = idsByKey.updateValue(id, forKey: key) {
                throw ConfigurationError(
                    "the same key is authorized for '\(other.prefix(64))' and '\(id.prefix(64))': a key is one client's, under one id"
                )
            }
            guard (try? CurveKey(z85: key)) != nil else {
                throw ConfigurationError(
                    "the key authorized for '\(id.prefix(64))' is not a CURVE public key: give the 40 Z85 characters `flowd keygen` prints"
                )
            }
        }
    }
}
