import Synchronization
import ZeroMQ

/// The CURVE public keys the handshake lets in, each with the id its client must say HELLO under. Read by the ZAP
/// handler's thread at every handshake; replaced by a reload.
final class AllowedKeys: Sendable {
    private let keys = Mutex<[CurveKey: String]>([:])

    /// The id `key` is authorized under, if it is.
    func id(of key: CurveKey) -> String? {
        keys.withLock { $0[key] }
    }

    /// Lets in exactly these clients (id → Z85 public key; keys already checked).
    func replace(with authorized: [String: String]) {
        var allowed: [CurveKey: String] = [:]
        for (id, key) in authorized {
            if let key = try? CurveKey(z85: key) {
                allowed[key] = id
            }
        }
        keys.withLock { $0 = allowed }
    }
}
