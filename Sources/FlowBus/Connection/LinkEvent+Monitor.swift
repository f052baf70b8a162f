import ZeroMQ

extension LinkEvent {
    /// The event a monitor's event is for the client's state machine; `nil` for those it does not act on.
    init?(_ event: MonitorEvent) {
        switch event.kind {
        case .connected:
            self = .connected
        case .disconnected:
            self = .disconnected(endpoint: event.endpoint)
        case .handshakeFailedAuthentication:
            self = .handshakeFailed(HandshakeFailure(kind: .authentication, status: event.value))
        case .handshakeFailedProtocol, .handshakeFailedNoDetail:
            self = .handshakeFailed(HandshakeFailure(kind: .other, status: event.value))
        case .connectDelayed, .connectRetried, .listening, .bindFailed, .accepted, .acceptFailed, .closed, .closeFailed,
            .monitorStopped, .handshakeSucceeded, .other:
            return nil
        }
    }
}
