/// Why a handshake with flowd failed, as the monitor said.
struct HandshakeFailure: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// flowd's authentication refused the client, with a ZAP status (400 for denied).
        case authentication
        /// A protocol error, or a failure without detail.
        case other
    }

    let kind: Kind
    /// The monitor's value: the ZAP status for an authentication failure.
    let status: Int

    /// What the failure means for the user.
    func problem(curve: Bool) -> String {
        switch kind {
        case .authentication where curve:
            return
                "flowd refused this client in the handshake (status \(status)): its CURVE key is not authorized there, or flowd holds as many connections as it may"
        case .authentication:
            return
                "flowd refused the connection in the handshake (status \(status)): it holds as many connections as it may, or it requires CURVE"
        case .other:
            return curve
                ? "the CURVE handshake with flowd failed: is the server key flowd's public key, and does flowd use CURVE?"
                : "the handshake with flowd failed: flowd may require CURVE (give its public key and this client's secret key)"
        }
    }
}
