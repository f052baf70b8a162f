import FlowWire

/// Who a connection is on the bus.
struct ConnectionSetup: Sendable {
    let options: ClientOptions
    let role: Role
    let id: String
    let name: String
    let session: String?

    init(options: ClientOptions, role: Role, name: String, session: String?) throws(FlowBusError) {
        if let problem = options.environmentProblem {
            throw FlowBusError(.invalidOptions, problem)
        }
        let id = options.id ?? [session, name].compactMap { $0 }.joined(separator: "/")
        guard !name.isEmpty else {
            throw FlowBusError(.invalidOptions, "the name must not be empty")
        }
        guard !id.isEmpty, id.utf8.count <= 255, id.utf8.first != 0 else {
            throw FlowBusError(
                .invalidOptions,
                "the id '\(id)' cannot be a routing id: it must have 1 to 255 bytes and not start with a zero byte"
            )
        }
        if let session, session.isEmpty {
            throw FlowBusError(.invalidOptions, "the session must not be empty")
        }
        // flowd remembers the fates of the last 256 steps of each sender, to answer them when they are resent.
        guard (1...256).contains(options.maxOutstandingSteps) else {
            throw FlowBusError(
                .invalidOptions,
                "maxOutstandingSteps must be 1 to 256, not \(options.maxOutstandingSteps)"
            )
        }
        guard options.reconnectInterval >= .milliseconds(1), options.reconnectIntervalMax >= options.reconnectInterval
        else {
            throw FlowBusError(
                .invalidOptions,
                "reconnectInterval must be at least 1 ms, and reconnectIntervalMax at least reconnectInterval"
            )
        }
        self.options = options
        self.role = role
        self.id = id
        self.name = name
        self.session = session
    }
}
