import Logging
import ZeroMQ

/// flowd's two ZeroMQ sockets, set up in one place: the control ROUTER and the events XPUB with their options, the
/// control socket's monitor, and the endpoints bound (an ipc endpoint's socket file removed again by
/// ``removeFiles()``). Owned by the loop's thread.
final class ServerSockets {
    let router: Socket
    let events: Socket
    /// The control socket's connections, as libzmq reports them.
    let controlMonitor: SocketMonitor
    /// The endpoints bound, as libzmq names them (a port picked for `:*` included).
    private(set) var boundControl: [String] = []
    private(set) var boundEvents: [String] = []
    /// The ipc socket files this flowd bound: they go when it stops, so that no stale file is left behind.
    private var files: [IPCEndpoint] = []

    /// Makes the sockets with their options; nothing is bound yet.
    init(configuration: DaemonConfiguration, context: Context, replyHighWaterMark: Int) throws {
        router = try Socket(.router, context: context)
        // A new connection under a connected peer's id takes it over (a restarted process), but with CURVE that
        // would let one key take another's replies: then a connected id is kept, dead connections are found by
        // ZMTP heartbeats, and a connection that holds another key's id is cut (ControlConnections), so that the
        // id is free again within the heartbeat timeout.
        if configuration.curve == nil {
            try router.setOption(.routerHandover, true)
        } else {
            try router.setOption(.heartbeatInterval, configuration.heartbeatInterval)
            try router.setOption(.heartbeatTimeout, configuration.heartbeatTimeout)
            router.capturesSourceDescriptor = true
        }
        try router.setOption(.routerMandatory, true)
        try router.setOption(.maxMessageSize, configuration.maxMessageSize + 8192)
        try router.setOption(.sendHighWaterMark, replyHighWaterMark)
        events = try Socket(.extendedPublisher, context: context)
        try events.setOption(.extendedPublisherVerboser, true)
        try events.setOption(.sendHighWaterMark, configuration.sendQueueLimit)
        // Subscriptions are all that comes in. Each time flowd uses the socket (to read or to publish), libzmq may
        // take what a subscriber's connection holds, up to this many, into its tree of topics ahead of what flowd
        // has counted (SubscriptionIntake): measured with 100, a subscription flood took flowd to 700 MiB while
        // a stepper ticked; with 10, to 46 MiB. A subscriber that sends more waits (its socket fills).
        try events.setOption(.receiveHighWaterMark, 10)
        // With CURVE, flowd decides each subscription itself, by the subscriber's key and its grant.
        if configuration.curve != nil {
            try events.setOption(.extendedPublisherManual, true)
        }
        controlMonitor = try router.monitor()
    }

    /// Binds every endpoint of the configuration; an ipc one only where no other process serves it, its file
    /// given the configured mode and group.
    func bind(_ configuration: DaemonConfiguration, logger: Logger) throws {
        for (socket, endpoints, isControl) in [
            (router, configuration.controlEndpoints, true), (events, configuration.eventsEndpoints, false),
        ] {
            for endpoint in endpoints {
                let last = try bind(socket, endpoint, isControl: isControl, configuration)
                if isControl { boundControl.append(last) } else { boundEvents.append(last) }
            }
        }
        guard !files.isEmpty else { return }
        if configuration.curve == nil, let mode = configuration.ipcMode, mode & 0o002 != 0 {
            logger.warning(
                "the ipc socket files are writable by every user (ipcMode \(String(mode, radix: 8))) and there is no CURVE: any local user can step, present and end sessions; give a group instead (ipcMode 0660, ipcGroup)"
            )
        }
        if configuration.ipcGroup != nil, (configuration.ipcMode ?? 0) & 0o020 == 0 {
            logger.warning(
                "ipcGroup is set, but the ipc socket files' mode does not let the group write (connecting takes write permission): add ipcMode 0660"
            )
        }
    }

    private func bind(
        _ socket: Socket,
        _ endpoint: String,
        isControl: Bool,
        _ configuration: DaemonConfiguration
    ) throws -> String {
        let file = IPCEndpoint(endpoint)
        try file?.prepareDirectory()
        // Again, right before binding (the restore may have taken a while): binding replaces the file.
        if let file, file.isServed || file.isSomethingElse {
            throw DaemonError(
                "ipc://\(file.path) is served by another process, or is not a socket file; stop it or move it away, or give this flowd other endpoints"
            )
        }
        do {
            try socket.bind(endpoint)
        } catch {
            throw DaemonError(DaemonServer.bindFailure(endpoint, error, isControl: isControl))
        }
        if let file {
            files.append(file)
            try file.setAccess(mode: configuration.ipcMode, group: configuration.ipcGroup.flatMap(IPCEndpoint.groupID))
        }
        return try socket.lastEndpoint
    }

    /// Removes the socket files of the ipc endpoints it bound.
    func removeFiles() {
        for file in files {
            file.remove()
        }
        files = []
    }
}
