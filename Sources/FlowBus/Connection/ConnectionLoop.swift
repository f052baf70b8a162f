import FlowCore
import FlowWire
import Foundation
import ZeroMQ

/// The connection's thread: it owns the sockets and every piece of protocol state (registration, sequence
/// numbers, steps waiting for their fate, the presenter's screens), and nothing else touches them.
///
/// It registers with HELLO whenever the DEALER (re)connects, resends the steps still waiting for their fate after
/// each WELCOME (flowd applies each sequence once), heartbeats when idle, replaces a connection that went silent,
/// and keeps a presenter's screens in step with flowd's command stream, resyncing from a snapshot when needed.
final class ConnectionLoop {
    /// A step or deep link sent and not yet acknowledged.
    struct InFlight {
        let message: FlowWire.Message
        let fate: PendingReply<Fate>?
    }

    /// A query waiting for its reply.
    struct WaitingQuery {
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
    let subscriber: Socket?
    var poller = Poller()
    var running = true

    // Registration and liveness.
    var connected = false
    var registered = false
    var helloID: UInt64?
    var helloSentAt: ContinuousClock.Instant?
    var helloRetry: Duration
    var lastHeard: ContinuousClock.Instant
    var lastSent: ContinuousClock.Instant
    var heartbeatInterval: Duration = .seconds(1)
    var heartbeatTimeout: Duration = .seconds(5)

    // Messages.
    var lastMessageID: UInt64 = 0
    var lastSequence: UInt64 = 0
    var inFlight: [UInt64: InFlight] = [:]
    var sequenceOfMessage: [UInt64: UInt64] = [:]
    var unsent: [(message: FlowWire.Message, session: String?)] = []
    var queries: [UInt64: WaitingQuery] = [:]

    // A presenter's screens.
    var tree = ScreenTree()
    var epoch: String?
    var applied: UInt64 = 0
    var snapshotReason: RebuildReason?
    var buffered: [CommandsMessage] = []
    var reportedVisible: Set<PresentableID> = []
    /// Whether the application reports visibility with `reportVisible` (then dismissals report what they uncover).
    var reportsVisibility = false
    var hasBuilt = false

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
        helloRetry = setup.options.reconnectInterval * 2
        do {
            context = try BusConnection.context.get()
            (dealer, monitor) = try Self.makeDealer(setup, context: context)
            if setup.role == .presenter, let session = setup.session {
                let subscriber = try Socket(.subscriber, context: context)
                try Self.configure(subscriber, setup)
                try subscriber.subscribe("cmd/\(session)/\(setup.name)")
                try subscriber.connect(setup.options.endpoints.events)
                self.subscriber = subscriber
            } else {
                subscriber = nil
            }
        } catch {
            throw FlowBusError(.invalidOptions, "cannot connect to \(setup.options.endpoints.control): \(error)")
        }
        // A presenter builds its window from a snapshot first; batches published before it wait for it.
        snapshotReason = setup.role == .presenter ? .start : nil
        rebuildPoller()
    }

    private static func makeDealer(
        _ setup: ConnectionSetup,
        context: Context
    ) throws(ZeroMQError) -> (Socket, SocketMonitor) {
        // A short linger lets BYE leave when the client closes.
        let dealer = try Socket(.dealer, context: context, linger: .milliseconds(200))
        try dealer.setOption(.routingID, Array(setup.id.utf8))
        try configure(dealer, setup)
        let monitor = try dealer.monitor()
        try dealer.connect(setup.options.endpoints.control)
        return (dealer, monitor)
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

    private func rebuildPoller() {
        poller = Poller()
        wakeupIndex = poller.register(fileDescriptor: connection.wakeup.fileDescriptor)
        dealerIndex = poller.register(dealer)
        monitorIndex = poller.register(monitor.socket)
        subscriberIndex = subscriber.map { poller.register($0) }
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

    /// The next moment something must be done even without traffic.
    private func nextDeadline() -> ContinuousClock.Instant {
        var deadline = clock.now + .seconds(1)
        if startup != nil {
            deadline = min(deadline, startupDeadline)
        }
        if registered {
            deadline = min(deadline, lastSent + heartbeatInterval, lastHeard + heartbeatTimeout)
        } else if connected, let helloSentAt {
            deadline = min(deadline, helloSentAt + helloRetry)
        }
        for query in queries.values {
            deadline = min(deadline, query.deadline)
        }
        return deadline
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
                case .commands(let commands) = envelope.message
            else {
                continue
            }
            received(commands)
        }
    }

    private func watchConnection() {
        while let event = try? monitor.next() {
            switch event.kind {
            case .connected:
                connected = true
                registered = false
                hello()
            case .disconnected:
                setup.options.logger.info("lost the connection to flowd at \(event.endpoint); reconnecting")
                connected = false
                registered = false
            default:
                break
            }
        }
    }

    // MARK: Liveness

    private func keepAlive() {
        let now = clock.now
        if let startup, now >= startupDeadline {
            startup.resume(
                with: .failure(
                    FlowBusError(
                        .unreachable,
                        "flowd did not answer at \(setup.options.endpoints.control) within \(setup.options.connectTimeout); is it running?"
                    )
                )
            )
            self.startup = nil
            running = false
            return
        }
        for (id, query) in queries where now >= query.deadline {
            queries[id] = nil
            query.reply.resume(with: .failure(FlowBusError(.timedOut, "flowd did not answer in time")))
        }
        if registered {
            if now - lastHeard > heartbeatTimeout {
                setup.options.logger.info("flowd has been silent for \(heartbeatTimeout); opening a new connection")
                replaceDealer()
            } else if now - lastSent >= heartbeatInterval {
                send(.heartbeat(Heartbeat()), session: setup.session)
            }
        } else if connected, let helloSentAt, now - helloSentAt >= helloRetry {
            helloRetry = min(helloRetry * 2, setup.options.reconnectIntervalMax)
            hello()
        }
    }

    /// A new DEALER with the same routing id: flowd hands the id over to it.
    private func replaceDealer() {
        do {
            (dealer, monitor) = try Self.makeDealer(setup, context: context)
        } catch {
            setup.options.logger.info("cannot open a new connection: \(error)")
            running = false
            return
        }
        connected = false
        registered = false
        helloSentAt = nil
        lastHeard = clock.now
        rebuildPoller()
    }

    func hello() {
        helloSentAt = clock.now
        helloID = send(
            .hello(
                Hello(
                    role: setup.role,
                    id: setup.id,
                    name: setup.name,
                    session: setup.session,
                    capabilities: ["resend", "resync"]
                )
            ),
            session: setup.session
        )
    }

    // MARK: Sending

    /// Sends a message now; returns its header id.
    @discardableResult
    func send(_ message: FlowWire.Message, session: String?) -> UInt64 {
        lastMessageID += 1
        let header = Header(
            id: lastMessageID,
            session: session,
            sender: setup.id,
            sentAt: Int64(Date().timeIntervalSince1970 * 1000)
        )
        // A full queue (flowd away for long) drops the message; steps are resent after the next WELCOME.
        _ = try? dealer.send(frames: codec.encode(Envelope(header: header, message: message)), dontWait: true)
        lastSent = clock.now
        return lastMessageID
    }

    /// Sends a step or deep link, remembering which message carried it.
    func transmit(_ sequence: UInt64) {
        guard let step = inFlight[sequence] else { return }
        sequenceOfMessage[send(step.message, session: setup.session)] = sequence
    }

    // MARK: Requests

    private func handle(_ request: Request) {
        switch request {
        case .emit(let outbound, let fate):
            lastSequence += 1
            let message: FlowWire.Message =
                switch outbound {
                case .step(let step, let presentable):
                    .step(StepMessage(step: step, sequence: lastSequence, presentable: presentable))
                case .deepLink(let path):
                    .deepLink(DeepLinkMessage(path: path, sequence: lastSequence))
                }
            inFlight[lastSequence] = InFlight(message: message, fate: fate)
            if registered {
                transmit(lastSequence)
            }
        case .send(let message, let session):
            if registered {
                send(message, session: session)
            } else {
                unsent.append((message, session))
            }
        case .reportVisible(let screens):
            reportVisible(screens)
        case .reportDismissed(let presentables):
            reportDismissed(presentables)
        case .ask(let message, let session, let reply, let timeout):
            let id = send(message, session: session)
            queries[id] = WaitingQuery(reply: reply, deadline: clock.now + timeout)
        case .resync:
            requestSnapshot(.inconsistent)
        case .close(let done):
            running = false
            if let done {
                closeWaiters.append(done)
            }
        }
    }

    var closeWaiters: [PendingReply<Void>] = []

    /// Stops: BYE to flowd, every waiter told, the streams finished.
    private func finish() {
        if registered {
            send(.bye(Bye(reason: "closed")), session: setup.session)
        }
        let closed = FlowBusError(.closed, "the client is closed")
        for request in connection.closeQueue() {
            switch request {
            case .emit(_, let fate):
                connection.releaseStep()
                fate?.resume(with: .failure(closed))
            case .ask(_, _, let reply, _):
                reply.resume(with: .failure(closed))
            case .close(let done):
                done.map { closeWaiters.append($0) }
            case .send, .reportVisible, .reportDismissed, .resync:
                break
            }
        }
        for step in inFlight.values {
            connection.releaseStep()
            step.fate?.resume(with: .failure(closed))
        }
        inFlight = [:]
        for query in queries.values {
            query.reply.resume(with: .failure(closed))
        }
        queries = [:]
        startup?.resume(with: .failure(closed))
        connection.updates?.finish()
        connection.questions?.finish()
        for waiter in closeWaiters {
            waiter.resume(with: .success(()))
        }
    }
}
