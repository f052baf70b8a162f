import FlowCore
import FlowWire
import Foundation
import ZeroMQ

/// The connection's thread: it owns the sockets and every piece of protocol state (registration, sequence
/// numbers, steps waiting for their fate, the presenter's screens), and nothing else touches them.
///
/// It registers with HELLO whenever the DEALER (re)connects, resends the steps still waiting for their fate after
/// each WELCOME (flowd applies each sequence once), heartbeats when idle, replaces connections that went silent,
/// and keeps a presenter's screens in step with flowd's command stream, resyncing from a snapshot when needed.
final class ConnectionLoop {
    /// A step or deep link taken and not yet acknowledged.
    struct InFlight {
        /// STEP or DEEPLINK, and its body, encoded once however often it is sent.
        let type: MessageType
        let body: [UInt8]
        /// The session its header names.
        let session: String?
        let fate: PendingReply<Fate>?
        /// The id of the message that last carried it, and when it went.
        var messageID: UInt64?
        var sentAt: ContinuousClock.Instant?
    }

    /// A message that waits for a REPLY.
    struct WaitingAnswer {
        let message: FlowWire.Message
        let session: String?
        let reply: PendingReply<JSONValue>
        let deadline: ContinuousClock.Instant
    }

    let connection: BusConnection
    let setup: ConnectionSetup
    let context: Context
    let codec = WireCodec()
    let clock = ContinuousClock()
    var startup: PendingReply<Void>?
    let startupDeadline: ContinuousClock.Instant

    var dealer: Socket
    var monitor: SocketMonitor
    /// The instance the sockets connect to: one of the options' candidates, or the one a REDIRECT named.
    var target: Endpoints
    /// Which of the options' candidates was tried last.
    var candidateIndex = 0
    /// Since when the client has not been registered (connecting, or after losing its connection): past
    /// ``failoverDelay``, it tries the next candidate.
    var unregisteredSince: ContinuousClock.Instant?
    /// Why the last handshake with flowd failed, if one did: said when flowd does not answer.
    var handshakeProblem: String?
    /// Why flowd last refused to register this client for want of its store (`storeUnavailable`), if it did: said
    /// when the connect timeout passes.
    var storeProblem: String?
    var subscriber: Socket?
    var subscriberMonitor: SocketMonitor?
    var poller = Poller()
    var running = true
    var closeWaiters: [PendingReply<Void>] = []

    // Registration and liveness.
    var connected = false
    var registered = false
    var helloID: UInt64?
    var helloSentAt: ContinuousClock.Instant?
    var helloRetry: Duration
    /// HELLOs sent on the current connection that got no answer at all.
    var unansweredHellos = 0
    var lastHeard: ContinuousClock.Instant
    var lastSent: ContinuousClock.Instant
    var heartbeatInterval: Duration = .seconds(1)
    var heartbeatTimeout: Duration = .seconds(5)
    /// When what waits too long for an answer is next looked for (a look goes through everything in flight: it
    /// is done a few times per heartbeat timeout, not on every turn of the loop).
    var nextOverdueCheck: ContinuousClock.Instant
    var maxMessageSize = 1 << 20

    // Messages.
    var lastMessageID: UInt64 = 0
    var lastSequence: UInt64 = 0
    var inFlight: [UInt64: InFlight] = [:]
    var sequenceOfMessage: [UInt64: UInt64] = [:]
    /// The highest sequence sent again because flowd reported a gap: later gap reports up to it are answered
    /// already.
    var resentAfterGap: UInt64 = 0
    var unsent: [(message: FlowWire.Message, session: String?)] = []
    var answers: [UInt64: WaitingAnswer] = [:]
    var unsentAsks: [WaitingAnswer] = []

    // A presenter's screens.
    var tree = ScreenTree()
    var epoch: String?
    var applied: UInt64 = 0
    var snapshotReason: RebuildReason?
    var snapshotRequestedAt: ContinuousClock.Instant?
    /// Whether flowd confirmed the presenter's subscription (a HEARTBEAT on its topic): only then does a snapshot
    /// leave no gap, so it is asked for only then.
    var subscriptionLive = false
    /// When the events connection was last (re)made.
    var lastSubscribed: ContinuousClock.Instant
    var buffered: [CommandsMessage] = []
    var reportedVisible: Set<PresentableID> = []
    /// Whether the application reports visibility with `reportVisible` (then dismissals report what they uncover).
    var reportsVisibility = false
    /// Whether a snapshot was applied already (the run of flowd it came from is known).
    var hasBuilt: Bool { epoch != nil }
    /// A presenter registered again: flowd holds its screens hidden until it reports them after the snapshot (a
    /// restarted flowd, a lost presenter), so the steps it sends as them wait until that report, else each would be
    /// dropped `notVisible` (a tap made while flowd was away).
    var holdsScreenSteps = false {
        didSet { screenStepsHeldSince = holdsScreenSteps ? clock.now : nil }
    }
    var screenStepsHeldSince: ContinuousClock.Instant?

    /// Runs a connection on the calling thread until it is closed (or never reaches flowd).
    static func run(_ connection: BusConnection, registered: PendingReply<Void>) {
        let loop: ConnectionLoop
        do {
            loop = try ConnectionLoop(connection, startup: registered)
        } catch {
            registered.resume(with: .failure(error))
            _ = connection.closeQueue()
            connection.updates?.finish()
            connection.questions?.finish()
            return
        }
        loop.run()
    }

    private init(_ connection: BusConnection, startup: PendingReply<Void>) throws(FlowBusError) {
        self.connection = connection
        self.setup = connection.setup
        self.startup = startup
        let now = clock.now
        startupDeadline = now + setup.options.connectTimeout
        lastHeard = now
        lastSent = now
        lastSubscribed = now
        nextOverdueCheck = now
        helloRetry = setup.options.reconnectInterval * 2
        target = setup.options.endpoints
        unregisteredSince = now
        do {
            context = try BusConnection.context.get()
            (dealer, monitor) = try Self.makeDealer(setup, to: target, context: context)
            if let (subscriber, monitor) = try Self.makeSubscriber(setup, to: target, context: context) {
                self.subscriber = subscriber
                subscriberMonitor = monitor
            }
        } catch {
            throw FlowBusError(.invalidOptions, "cannot connect to \(setup.options.endpoints.control): \(error)")
        }
        // A presenter builds its window from a snapshot first; batches published before it wait for it.
        snapshotReason = setup.role == .presenter ? .start : nil
        rebuildPoller()
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

    private var wakeupIndex = 0
    private var dealerIndex = 0
    private var monitorIndex = 0
    private var subscriberIndex: Int?
    private var subscriberMonitorIndex: Int?

    func rebuildPoller() {
        poller = Poller()
        wakeupIndex = poller.register(fileDescriptor: connection.wakeup.fileDescriptor)
        dealerIndex = poller.register(dealer)
        monitorIndex = poller.register(monitor.socket)
        subscriberIndex = subscriber.map { poller.register($0) }
        subscriberMonitorIndex = subscriberMonitor.map { poller.register($0.socket) }
    }

    // MARK: The loop

    private func run() {
        while running {
            let ready: [(index: Int, events: PollEvents)]
            do {
                ready = try poller.poll(timeout: max(.zero, clock.now.duration(to: nextDeadline())))
            } catch {
                setup.options.logger.info("polling failed, the connection stops: \(error)")
                break
            }
            for (index, _) in ready {
                switch index {
                case wakeupIndex:
                    connection.wakeup.drain()
                case dealerIndex:
                    receiveFromDaemon()
                case monitorIndex:
                    watchConnection()
                case subscriberIndex:
                    receivePublished()
                case subscriberMonitorIndex:
                    watchSubscription()
                default:
                    break
                }
            }
            for request in connection.takeRequests() {
                handle(request)
            }
            keepAlive()
        }
        finish()
    }

    private func receiveFromDaemon() {
        while running, let message = try? dealer.receive(dontWait: true) {
            lastHeard = clock.now
            do {
                let envelope = try codec.decode(message.frames)
                handle(envelope)
            } catch {
                setup.options.logger.info("flowd sent something unreadable: \(error)")
            }
        }
    }

    private func receivePublished() {
        guard let subscriber else { return }
        while let message = try? subscriber.receive(dontWait: true) {
            guard let envelope = try? codec.decode(Array(message.frames.dropFirst())),
                envelope.header.session == setup.session
            else {
                continue
            }
            switch envelope.message {
            case .commands(let commands):
                received(commands)
            case .heartbeat:
                subscriptionConfirmed()
            default:
                break
            }
        }
    }

    private func watchConnection() {
        while let event = try? monitor.next() {
            switch event.kind {
            case .handshakeFailedAuthentication, .handshakeFailedProtocol, .handshakeFailedNoDetail:
                handshakeProblem = Self.describeHandshakeFailure(event, curve: setup.options.curve != nil)
            case .connected:
                connected = true
                registered = false
                hello()
            case .disconnected:
                setup.options.logger.info("lost the connection to flowd at \(event.endpoint); reconnecting")
                connected = false
                registered = false
                unregisteredSince = unregisteredSince ?? clock.now
            default:
                break
            }
        }
    }

    /// The events connection came back: batches may have been published while it was away. The snapshot waits
    /// until flowd confirms the subscription again.
    private func watchSubscription() {
        while let event = try? subscriberMonitor?.next() {
            switch event.kind {
            case .connected:
                // `subscriptionLive` is left alone: `.disconnected` cleared it, and flowd's confirmation for this
                // connection may already have been read (it can come before this event).
                lastSubscribed = clock.now
                if hasBuilt {
                    requestSnapshot(.reconnected)
                }
            case .disconnected:
                subscriptionLive = false
            default:
                break
            }
        }
    }
}
