import FlowCore
import FlowSpec
import FlowStore
import FlowWire
import Foundation
import Glibc
import Logging
import Synchronization
import ZeroMQ

/// flowd's sockets and event loop: one thread (the one that calls ``run()``) owns the sockets and the
/// ``Coordinator``; other threads only ask it to stop or reload: they set a flag and raise a `WakePipe`, which
/// needs no new file descriptor (a flowd whose descriptors are all taken by connections still stops).
///
/// Each turn of the loop takes what the sockets have and lets the coordinator apply it; the coordinator's
/// ``TurnEffects`` say what to write and then what to send. The writes go to the ``JournalWriter`` (its own
/// service, on its own thread), and the turn's messages wait until it says they are written: nothing leaves flowd
/// about an input that is not written (unless the durability is `off`). Meanwhile the loop goes on with the next
/// turns.
public final class DaemonServer: Sendable {
    let configuration: DaemonConfiguration
    private let specification: FlowSpecification
    private let context: Context
    /// Raised by ``stop()`` and ``reload()``.
    let control: WakePipe
    let logger: Logger
    let writer: JournalWriter
    private let state = Mutex(State.idle)
    /// Flows read and checked off the loop, waiting for the loop to take them.
    private let reloaded = Mutex<FlowSpecification?>(nil)
    /// Settings read and checked off the loop, waiting for the loop to take those a reload changes.
    private let reloadedSettings = Mutex<DaemonConfiguration?>(nil)
    /// The CURVE keys the handshake lets in, each with its client's id; a reload replaces them.
    private let allowedKeys = AllowedKeys()
    /// Set by ``stop()``: the loop stops at its next turn, or before it starts (a stop asked during the restore).
    let stopRequested = Mutex(false)
    /// Why an instance of a fleet must stop: another flowd registered under its name.
    private let fencedOff = Mutex<String?>(nil)
    /// Where the loop's figures go at every tick, and the steps' decision times; `nil` without `--metrics`.
    let metrics: DaemonMetrics?
    /// What the loop says of its health (ticks, ready, stopping).
    public let health: DaemonHealth
    /// What the WebSocket endpoint serves besides the protocol, by path (`/flowbus.js`).
    private let webAssets: [String: WebAsset]
    /// The tokens the WebSocket handshakes accept; a reload replaces them.
    private let webSocketTokens: WebSocketTokenTable

    private enum State {
        case idle, running, stopped
    }

    /// Creates a server that writes through `writer` (run it as a ``JournalWriterService`` beside this one);
    /// nothing is bound until ``run()``. With `metrics`, the loop publishes its figures there at every tick and
    /// times every step. With a WebSocket endpoint, it serves `webAssets` by path beside it (the JavaScript client).
    public init(
        configuration: DaemonConfiguration,
        specification: FlowSpecification,
        writer: JournalWriter,
        metrics: DaemonMetrics? = nil,
        webAssets: [String: WebAsset] = [:],
        logger: Logger
    ) throws {
        self.metrics = metrics
        self.webAssets = webAssets
        self.webSocketTokens = WebSocketTokenTable(configuration.webSocket?.tokens ?? [])
        self.health = DaemonHealth(tickPeriod: .milliseconds(max(1, configuration.heartbeatInterval.milliseconds / 2)))
        self.configuration = configuration
        self.specification = specification
        self.writer = writer
        self.logger = logger
        self.control = try WakePipe()
        self.context = try Context()
    }

    /// Restores the sessions, binds the endpoints and runs the event loop on the calling thread until ``stop()``;
    /// then writes every session whole, so that the next start reads snapshots only, and waits for the writer.
    /// - Throws: `StoreError` or ``FlowsChangedError`` when the state cannot be used, ``DaemonError`` when an
    ///   endpoint is served by another process, and ZeroMQ's errors when one cannot be bound.
    public func run() throws {
        let started = state.withLock { state in
            guard state == .idle else { return false }
            state = .running
            return true
        }
        guard started else { return }
        defer { state.withLock { $0 = .stopped } }

        let ipcEndpoints = (configuration.controlEndpoints + configuration.eventsEndpoints).compactMap(IPCEndpoint.init)
        for endpoint in ipcEndpoints where endpoint.isServed {
            throw DaemonError(
                "ipc://\(endpoint.path) is served by another process (another flowd?); stop it, or give this flowd other endpoints"
            )
        }
        var daemon = try DaemonState.open(
            configuration: configuration,
            specification: specification,
            owner:
                "pid \(ProcessInfo.processInfo.processIdentifier)\ncontrol \(configuration.controlEndpoints.joined(separator: " "))\n",
            writer: writer,
            logger: logger
        )
        let leaseKeeper = daemon.lease.take().map { lease in
            FleetLeaseKeeper(lease: lease, health: health, logger: logger) { [self] reason in
                logger.critical("\(reason)")
                fencedOff.withLock { $0 = reason }
                stop()
            }
        }
        defer { leaseKeeper?.stop() }

        let sockets = try ServerSockets(
            configuration: configuration,
            context: context,
            replyHighWaterMark: Self.replyHighWaterMark
        )
        defer { sockets.removeFiles() }
        let loop = try serve(daemon, on: sockets)
        defer { loop.close() }
        try loop.run()
        try loop.finish()
        if let reason = fencedOff.withLock({ $0 }) {
            throw DaemonError(reason)
        }
        // Everything is written: an instance of a fleet hands its sessions over at once.
        leaseKeeper?.stop(releasing: true)
        logger.info("flowd stopped")
    }

    /// Sets up the handshake, the watch of the subscribers and the WebSocket endpoint, binds the sockets, says it is
    /// ready, and returns the loop that serves them (which stops the handshake and the endpoint when it goes).
    private func serve(_ daemon: DaemonState, on sockets: ServerSockets) throws -> DaemonLoop {
        let openFiles = FileDescriptorLimit.current
        let gate = ConnectionGate(cap: FileDescriptorLimit.connectionCap(for: openFiles))
        logger.info("open files: at most \(openFiles); connections taken: at most \(gate.cap)")
        // The events socket's connections, the subscribers, are watched from a thread of their own.
        let watch = try SubscriberWatch(
            monitoring: try sockets.events.startMonitor(),
            context: context,
            gate: gate,
            clock: daemon.clock,
            logger: logger
        )
        sockets.events.capturesPeerAddress = true
        let intake = SubscriptionIntake(
            manual: configuration.curve != nil,
            controlMonitor: sockets.controlMonitor,
            watch: watch,
            gate: gate,
            logger: logger
        )
        let authenticator = try guarding([sockets.router, sockets.events], with: configuration.curve, gate: gate)
        var webSockets: WebSocketPeers?
        do {
            try sockets.bind(configuration, logger: logger)
            // The WebSocket endpoint, on a thread of its own; its connections' messages come to this loop.
            webSockets = try configuration.webSocket.map { settings in
                WebSocketPeers(
                    endpoint: try WebSocketEndpoint.bind(
                        settings,
                        configuration: configuration,
                        assets: webAssets,
                        tokens: webSocketTokens,
                        logger: logger
                    )
                )
            }
            announceReady(sockets, webSockets)
            return try DaemonLoop(
                server: self,
                daemon: daemon,
                sockets: sockets,
                intake: intake,
                gate: gate,
                watch: watch,
                webSockets: webSockets,
                authenticator: authenticator
            )
        } catch {
            webSockets?.stop()
            authenticator.stop()
            throw error
        }
    }

    /// Logs where flowd listens and what it runs.
    private func announceReady(_ sockets: ServerSockets, _ webSockets: WebSocketPeers?) {
        var webSocketText = ""
        if let webSockets, let settings = configuration.webSocket {
            let tokens = settings.tokens.count
            let who = tokens > 0 ? "\(tokens) token\(tokens == 1 ? "" : "s")" : "no tokens: this machine only"
            let pages = settings.origins.map { "pages of \($0.joined(separator: ", "))" } ?? "pages of loopback hosts"
            webSocketText = " websocket ws://\(webSockets.address)\(WebSocketText.path) (\(who); \(pages))"
        }
        let controlList = sockets.boundControl.joined(separator: " ")
        let eventsList = sockets.boundEvents.joined(separator: " ")
        logger.info(
            "flowd \(Coordinator.version) ready: control \(controlList) events \(eventsList)\(webSocketText) flows \(configuration.flowsFile) (\(specification.summary))"
        )
    }

    /// How often an instance of a fleet looks at the fleet (dead instances' sessions to take over, sessions it
    /// lost, the instances): a quarter of the lease, at most a second (milliseconds).
    static func fleetLookInterval(_ lease: Duration) -> Int64 {
        min(1000, max(50, lease.milliseconds / 4))
    }

    /// The sessions an instance of a fleet takes over from dead instances at each look, at most.
    static let adoptedPerLook = 1000

    /// How long a stop waits for a store that does not answer before it gives up the writes left (flowd then exits
    /// 74: what they would have acknowledged is not sent).
    static let storeShutdownWait: Duration = .seconds(5)

    /// How often the loop gives free memory back to the system (milliseconds).
    static let trimInterval: Int64 = 10_000

    /// How many replies flowd queues at least for one peer that does not read them; beyond, they may be dropped and
    /// counted. A peer has few answers in flight (a stepper one per step it waits for): a thousand is ample.
    static let replyQueueLimit = 1_000

    /// The control socket's send high-water mark that keeps ``replyQueueLimit`` replies: libzmq's sending side
    /// learns of its peer's reads in steps of half the mark, so it counts up to half the mark more replies than
    /// wait unread. With the mark at the limit itself, a client with 1000 HELLOs in flight, as the specification
    /// allows, lost WELCOMEs now and then (the session-creation benchmark, twice: 38 of 100 000, 65 of 10 000);
    /// twice the limit queues at least the limit, and at most twice as many.
    static let replyHighWaterMark = 2 * replyQueueLimit

    /// What to say when an endpoint cannot be bound: the endpoint, the cause in words, and what to do.
    static func bindFailure(_ endpoint: String, _ error: ZeroMQError, isControl: Bool) -> String {
        let role = "cannot listen on \(endpoint)"
        switch error.code {
        case .addressInUse:
            // Only a control endpoint answers flowctl ping; for an events one, ask at its flowd's control endpoint.
            let ask =
                isControl
                ? "`flowctl ping --control \(endpoint)` asks"
                : "`flowctl ping` at its control endpoint asks; `flowctl list` shows its endpoints"
            return
                "\(role): the address is in use by another process (another flowd? \(ask)); stop it or give this flowd another endpoint"
        case .addressNotAvailable:
            return "\(role): the host is not an address of this machine"
        case _ where error.message.lowercased().contains("permission denied"):
            return "\(role): permission denied (a port below 1024, or an ipc directory flowd may not write)"
        default:
            return "\(role): \(error.message)"
        }
    }

    /// Asks the event loop to stop; returns at once. Safe from any thread, before the loop runs too.
    public func stop() {
        stopRequested.withLock { $0 = true }
        control.signal()
    }

    /// Reads and checks the flows file on the calling thread (disk work stays off the event loop), then hands
    /// the new flows to the loop, which keeps every running session on them. An invalid file is refused here,
    /// with its problems logged, and the loop never hears of it. Safe from any thread.
    public func reload() {
        let specification: FlowSpecification
        do {
            specification = try FlowSpecification.load(contentsOf: configuration.flowsFile)
        } catch {
            // A line each: a log line holds no line break (it would show as `\n`).
            logger.warning("reload refused, the running flows stay: \(error.message)")
            for diagnostic in error.diagnostics {
                logger.warning("\(diagnostic)")
            }
            return
        }
        reloaded.withLock { $0 = specification }
        control.signal()
    }

    /// Hands the loop new settings (read and checked by the caller): the handshake takes the new authorized keys at
    /// once, the coordinator the new rates, bounds and grants at the loop's next turn (``DaemonSetting/reloads``).
    /// Safe from any thread.
    public func reloadSettings(_ configuration: DaemonConfiguration) {
        if let curve = configuration.curve, curve.secretKey == self.configuration.curve?.secretKey {
            allowedKeys.replace(with: curve.authorizedKeys)
        }
        if let webSocket = configuration.webSocket, self.configuration.webSocket != nil {
            webSocketTokens.replace(with: webSocket.tokens)
        }
        reloadedSettings.withLock { $0 = configuration }
        control.signal()
    }

    /// Gives the coordinator the settings ``reloadSettings(_:)`` prepared. When keys were withdrawn, their peers are
    /// unregistered and every subscriber connection is cut: clients connect again through the handshake, which
    /// refuses the withdrawn keys, and the others resubscribe (a presenter resyncs).
    func applyReloadedSettings(
        _ coordinator: inout Coordinator,
        watch: SubscriberWatch,
        webSockets: WebSocketPeers?
    ) {
        guard let new = reloadedSettings.withLock({ $0.take() }) else { return }
        let keysBefore = Set((coordinator.configuration.curve?.authorizedKeys ?? [:]).map { "\($0.key)=\($0.value)" })
        let withdrawn = coordinator.takeReloadedSettings(from: new)
        // A WebSocket peer whose token went (or whose grant no longer covers it) is closed; it may connect again
        // with a token the handshake takes.
        webSockets?.close(
            ids: withdrawn,
            code: WebSocketCloseCode.unauthorized,
            reason: "flowd no longer accepts this token for this"
        )
        let keysAfter = Set((coordinator.configuration.curve?.authorizedKeys ?? [:]).map { "\($0.key)=\($0.value)" })
        if !keysBefore.isSubset(of: keysAfter) {
            watch.cutEveryone()
            logger.notice(
                "authorized keys withdrawn: every subscriber connection is cut to go through the handshake again; peers unregistered: \(withdrawn.isEmpty ? "none" : withdrawn.map { LogText.quoted($0) }.joined(separator: ", "))"
            )
        }
    }

    /// Switches the coordinator to the flows ``reload()`` prepared; the sessions are written whole with them.
    func applyReload(_ coordinator: inout Coordinator) -> [Outgoing] {
        guard let specification = reloaded.withLock({ $0.take() }) else { return [] }
        do {
            let output = try coordinator.reload(specification)
            coordinator.setStoreMetadata(StoreKeys.flows, specification.source)
            coordinator.setStoreMetadata(StoreKeys.flowsFile, specification.file)
            logger.info("flows reloaded from \(configuration.flowsFile): \(specification.summary)")
            return output
        } catch {
            // A running session uses a flow the new file no longer has.
            logger.warning("reload refused, the running flows stay: \(error)")
            return []
        }
    }

    /// Starts the ZAP handler every handshake goes through, for NULL as for CURVE: it refuses connections beyond
    /// the gate's cap and, with CURVE, every key but the authorized ones, each let in with its id as the user id
    /// that HELLO must match.
    private func guarding(_ sockets: [Socket], with curve: CurveSettings?, gate: ConnectionGate) throws -> ZAPHandler {
        allowedKeys.replace(with: curve?.authorizedKeys ?? [:])
        let authorized = allowedKeys
        let curved = curve != nil
        let logger = logger
        let handler = try ZAPHandler(context: context) { request in
            guard gate.admits(request.address) else {
                return .deny(reason: "too many connections, or this process was cut for flooding")
            }
            guard curved else {
                return .allow(userID: "")
            }
            guard let key = request.clientKey, let id = authorized.id(of: key) else {
                logger.info(
                    "refused a client key: \(request.clientKey?.z85 ?? "none (\(request.mechanism))") from \(request.address)"
                )
                return .deny(reason: "unknown key")
            }
            guard !gate.keyBanned(id) else {
                gate.countRefusedBanned()
                return .deny(reason: "this key spoke under another's id and is refused for a while")
            }
            let handshake = gate.countHandshake(of: id)
            guard handshake.allowed else {
                gate.countRefusedBanned()
                if handshake.firstRefused {
                    logger.warning(
                        "the key of '\(LogText.quoted(id))' connects too often (more than \(ConnectionGate.handshakesPerWindow) times in \(ConnectionGate.handshakeWindow)): refused until the window ends; a key that connects again and again may be holding another's id"
                    )
                }
                return .deny(reason: "this key connects too often; try again in a few seconds")
            }
            return .allow(userID: id)
        }
        for socket in sockets {
            if let curve {
                try socket.makeCurveServer(secretKey: try CurveKey(z85: curve.secretKey))
            } else {
                // A ZAP domain makes libzmq ask the handler about NULL handshakes too.
                try socket.setOption(.zapDomain, "flowbus")
            }
        }
        return handler
    }
}

/// Why flowd cannot run, in words an operator can act on.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    /// What is wrong and what to do.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
