import FlowWire
import ZeroMQ

/// A client's sockets, their monitors and the poller over them (with the connection's wake-up): the control DEALER,
/// and a presenter's SUB for its commands.
struct ClientSockets {
    /// What a polled index is.
    enum Source {
        case wakeup
        case control
        case controlMonitor
        case events
        case eventsMonitor
    }

    let dealer: Socket
    let monitor: SocketMonitor
    let subscriber: Socket?
    let subscriberMonitor: SocketMonitor?
    private(set) var poller = Poller()
    /// What each index of the poller is, in the order registered.
    private(set) var sources: [Source] = []

    /// Sockets connected to `target`, and the poller over them and `wakeup`.
    init(_ setup: ConnectionSetup, to target: Endpoints, wakeup: WakePipe) throws(ZeroMQError) {
        let context = try BusConnection.context.get()
        (dealer, monitor) = try Self.makeDealer(setup, to: target, context: context)
        if let (subscriber, subscriberMonitor) = try Self.makeSubscriber(setup, to: target, context: context) {
            self.subscriber = subscriber
            self.subscriberMonitor = subscriberMonitor
        } else {
            subscriber = nil
            subscriberMonitor = nil
        }
        register(wakeup.fileDescriptor, as: .wakeup)
        register(dealer, as: .control)
        register(monitor.socket, as: .controlMonitor)
        if let subscriber, let subscriberMonitor {
            register(subscriber, as: .events)
            register(subscriberMonitor.socket, as: .eventsMonitor)
        }
    }

    private mutating func register(_ socket: Socket, as source: Source) {
        let index = poller.register(socket)
        assert(index == sources.count)
        sources.append(source)
    }

    private mutating func register(_ fileDescriptor: Int32, as source: Source) {
        let index = poller.register(fileDescriptor: fileDescriptor)
        assert(index == sources.count)
        sources.append(source)
    }

    /// Waits up to `timeout` for something to read; returns what is ready.
    mutating func poll(timeout: Duration) throws(ZeroMQError) -> [Source] {
        try poller.poll(timeout: timeout).map { sources[$0.index] }
    }

    static func makeDealer(
        _ setup: ConnectionSetup,
        to target: Endpoints,
        context: Context
    ) throws(ZeroMQError) -> (Socket, SocketMonitor) {
        // A short linger lets BYE leave when the client closes.
        let dealer = try Socket(.dealer, context: context, linger: .milliseconds(200))
        try dealer.setOption(.routingID, Array(setup.id.utf8))
        try configure(dealer, setup)
        // A flowd that stops answering ZMTP PINGs (killed, paused or cut off) is dropped: the monitor says
        // `disconnected`, and a fleet's next instance is tried (the SUB goes with it). Not on the SUB: what a
        // subscriber sends is bounded (8 KiB over tcp), and PINGs count.
        let check = max(.milliseconds(10), setup.options.connectionCheckInterval)
        try dealer.setOption(.heartbeatInterval, check)
        try dealer.setOption(.heartbeatTimeout, check * 4)
        let monitor = try dealer.monitor()
        try dealer.connect(target.control)
        return (dealer, monitor)
    }

    /// A presenter's SUB, subscribed to its commands (and nothing for other roles).
    static func makeSubscriber(
        _ setup: ConnectionSetup,
        to target: Endpoints,
        context: Context
    ) throws(ZeroMQError) -> (Socket, SocketMonitor)? {
        guard setup.role == .presenter, let session = setup.session else { return nil }
        let subscriber = try Socket(.subscriber, context: context)
        try configure(subscriber, setup)
        try subscriber.subscribe("cmd/\(session)/\(setup.name)")
        let monitor = try subscriber.monitor()
        try subscriber.connect(target.events)
        return (subscriber, monitor)
    }

    private static func configure(_ socket: Socket, _ setup: ConnectionSetup) throws(ZeroMQError) {
        try socket.setOption(.reconnectInterval, setup.options.reconnectInterval)
        try socket.setOption(.reconnectIntervalMax, setup.options.reconnectIntervalMax)
        if let curve = setup.options.curve {
            try socket.makeCurveClient(keyPair: curve.keys, serverKey: curve.serverKey)
        }
    }
}
