import Synchronization

/// The WebSocket tokens in effect, each with its id: read by the handshakes on the endpoint's thread, replaced by a
/// reload. A token is looked up in constant time with respect to its content: every known token is compared whole,
/// byte by byte, whatever matched, so that the time a refusal takes says nothing of how close a guess was.
final class WebSocketTokenTable: Sendable {
    private let tokens = Mutex<[(token: [UInt8], id: String)]>([])

    /// A table of `tokens`.
    init(_ tokens: [WebSocketToken]) {
        replace(with: tokens)
    }

    /// Whether no token is configured (then none is asked for).
    var isEmpty: Bool {
        tokens.withLock { $0.isEmpty }
    }

    /// The id `presented` is the token of, if it is one.
    func id(of presented: String) -> String? {
        let candidate = Array(presented.utf8)
        return tokens.withLock { tokens in
            var found: String?
            for entry in tokens where Self.equalInConstantTime(entry.token, candidate) {
                found = entry.id
            }
            return found
        }
    }

    /// Takes exactly these tokens from now on.
    func replace(with new: [WebSocketToken]) {
        let entries = new.map { (token: Array($0.token.utf8), id: $0.id) }
        tokens.withLock { $0 = entries }
    }

    /// Whether `a` and `b` are equal, reading every byte of the longer whatever they hold.
    static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count) | (a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            let left = index < a.count ? a[index] : 0
            let right = index < b.count ? b[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }
}
