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
/// ``Coordinator``; other threads only ask it to stop or reload: they set a flag and raise a ``WakePipe``, which
/// needs no new file descriptor (a flowd whose descriptors are all taken by connections still stops).
///
/// Each turn of the loop takes what the sockets have and lets the coordinator apply it; the coordinator's
/// ``TurnEffects`` say what to write and then what to send. The writes go to the ``JournalWriter`` (its own
/// service, on its own thread), and the turn's messages wait until it says they are written: nothing leaves flowd
/// about an input that is not written (unless the durability is `off`). Meanwhile the loop goes on with the next
/// turns.
public final class DaemonServer: Sendable {
    private let configuration: DaemonConfiguration
    private let specification: FlowSpecification
    private let context: Context
    /// Raised by ``stop()`` and ``reload()``.
    private let control: WakePipe
    private let logger: Logger
    private let writer: JournalWriter
    private let state = Mutex(State.idle)
    /// Flows read and checked off the loop, waiting for the loop to take them.
    private let reloaded = Mutex<FlowSpecification?>(nil)
    /// Settings read and checked off the loop, waiting for the loop to take those a reload changes.
    private let reloadedSettings = Mutex<DaemonConfiguration?>(nil)
    /// The CURVE keys the handshake lets in, each with its client's id; a reload replaces them.
    private let allowedKeys = AllowedKeys()
    /// Set by ``stop()``: the loop stops at its next turn, or before it starts (a stop asked during the restore).
    private let stopRequested = Mutex(false)
    /// Why an instance of a fleet must stop: another flowd registered under its name.
    private let fencedOff = Mutex<String?>(nil)
    /// Where the loop's figures go at every tick, and the steps' decision times; `nil` without `--metrics`.
    private let metrics: DaemonMetrics?
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
    /// - Throws: ``StoreError`` or ``FlowsChangedError`` when the state cannot be used, ``DaemonError`` when an
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

        let router = try Socket(.router, context: context)
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
        try router.setOption(.sendHighWaterMark, Self.replyHighWaterMark)
        let events = try Socket(.extendedPublisher, context: context)
        try events.setOption(.extendedPublisherVerboser, true)
        try events.setOption(.sendHighWaterMark, configuration.sendQueueLimit)
        // Subscriptions are all that comes in. Each time flowd uses the socket (to read or to publish), libzmq may
        // take what a subscriber's connection holds, up to this many, into its tree of topics ahead of what flowd
        // has counted (SubscriptionIntake): measured with 100, a subscription flood took flowd to 700 MiB while
        // a stepper ticked; with 10, to 46 MiB. A subscriber that sends more waits (its socket fills).
        try events.setOption(.receiveHighWaterMark, 10)
        // With CURVE, flowd decides each subscription itself, by the subscriber's key and its grant.
        let manualSubscriptions = configuration.curve != nil
        if manualSubscriptions {
            try events.setOption(.extendedPublisherManual, true)
        }
        let openFiles = FileDescriptorLimit.current
        let gate = ConnectionGate(cap: FileDescriptorLimit.connectionCap(for: openFiles))
        logger.info("open files: at most \(openFiles); connections taken: at most \(gate.cap)")
        let controlMonitor = try router.monitor()
        // The events socket's connections, the subscribers, are watched from a thread of their own.
        let watch = try SubscriberWatch(
            monitoring: try events.startMonitor(),
            context: context,
            gate: gate,
            clock: daemon.clock,
            logger: logger
        )
        events.capturesPeerAddress = true
        var intake = SubscriptionIntake(
            manual: manualSubscriptions,
            controlMonitor: controlMonitor,
            watch: watch,
            gate: gate,
            logger: logger
        )
        let authenticator = try guarding([router, events], with: configuration.curve, gate: gate)
        defer { authenticator.stop() }
        // An ipc endpoint is a socket file: it goes when flowd stops, so no stale file is left behind; only the
        // files this flowd bound.
        var boundFiles: [IPCEndpoint] = []
        defer {
            for file in boundFiles {
                file.remove()
            }
        }
        var bound: (control: [String], events: [String]) = ([], [])
        for (socket, endpoints, isControl) in [
            (router, configuration.controlEndpoints, true), (events, configuration.eventsEndpoints, false),
        ] {
            for endpoint in endpoints {
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
                    throw DaemonError(Self.bindFailure(endpoint, error, isControl: isControl))
                }
                if let file {
                    boundFiles.append(file)
                    try file.setAccess(
                        mode: configuration.ipcMode,
                        group: configuration.ipcGroup.flatMap(IPCEndpoint.groupID)
                    )
                }
                let last = try socket.lastEndpoint
                if socket === router { bound.control.append(last) } else { bound.events.append(last) }
            }
        }
        if !boundFiles.isEmpty {
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
        // The WebSocket endpoint, on a thread of its own; its connections' messages come to this loop.
        let webSockets = try configuration.webSocket.map { settings in
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
        defer { webSockets?.stop() }
        var webSocketText = ""
        if let webSockets {
            let address = webSockets.address
            let settings = configuration.webSocket
            let tokens = settings?.tokens.count ?? 0
            let who = tokens > 0 ? "\(tokens) token\(tokens == 1 ? "" : "s")" : "no tokens: this machine only"
            let pages = settings?.origins.map { "pages of \($0.joined(separator: ", "))" } ?? "pages of loopback hosts"
            webSocketText = " websocket ws://\(address)\(WebSocketText.path) (\(who); \(pages))"
        }
        let controlList = bound.control.joined(separator: " ")
        let eventsList = bound.events.joined(separator: " ")
        logger.info(
            "flowd \(Coordinator.version) ready: control \(controlList) events \(eventsList)\(webSocketText) flows \(configuration.flowsFile) (\(specification.summary))"
        )
        // Under systemd (Type=notify): ready once the endpoints are bound and the sessions restored.
        var notifier = SystemdNotifier()
        let status = { (coordinator: Coordinator) in
            "\(coordinator.sessionCount) sessions, \(coordinator.peerCount) peers"
        }
        notifier.notify("READY=1\nSTATUS=ready: \(status(daemon.coordinator))")
        health.becameReady()

        var outgoing = daemon.pendingOutput
        var delivery = OrderedDelivery(
            writer: daemon.durable ? writer : nil,
            waitsForWrites: configuration.durability != .off
        )
        var poller = Poller()
        let routerIndex = poller.register(router)
        let eventsIndex = poller.register(events)
        let controlIndex = poller.register(fileDescriptor: control.fileDescriptor)
        let writtenIndex = poller.register(fileDescriptor: writer.written.fileDescriptor)
        let monitorIndex = poller.register(controlMonitor.socket)
        let webSocketIndex = webSockets.map { poller.register(fileDescriptor: $0.wakeDescriptor) } ?? -1
        let clock = daemon.clock
        let gathers = daemon.durable && configuration.durability != .off
        var unread: [String: Int] = [:]
        var lastTrim = clock.now
        var lastFleetLook = clock.now
        var storeWatch = StoreWatch(availability: writer.availability, health: health, metrics: metrics, logger: logger)
        loop: while !stopRequested.withLock({ $0 }) {
            let wakeUp = min(
                daemon.coordinator.nextWakeUp(),
                intake.controls.nextCut ?? .max,
                notifier.nextDue ?? .max
            )
            let wait = max(0, wakeUp - clock.now)
            let ready = try poller.poll(timeout: .milliseconds(wait))
            // The two clocks are read apart, in whole milliseconds: their difference jitters by one either way.
            // Times flowd publishes must not go back, so the offset goes back only for a real step of the wall
            // clock (more than a second).
            let offset = DaemonClock.wallNow - clock.now
            if offset > daemon.coordinator.wallOffset || daemon.coordinator.wallOffset - offset > 1000 {
                daemon.coordinator.wallOffset = offset
            }
            // Connections that ended are known before anything is sent in this turn: with CURVE, a peer whose
            // connection may have ended is sent nothing until its key is heard again (a free id goes to whoever
            // asks for it).
            if configuration.curve != nil {
                try intake.readMonitors(now: clock.now)
                intake.controls.cutDue(now: clock.now)
                if intake.takeControlConnectionEnded() {
                    daemon.coordinator.controlConnectionEnded()
                }
            }
            if !unread.isEmpty {
                outgoing += daemon.coordinator.repliesDropped(unread, now: clock.now)
                unread = [:]
            }
            // Before this turn's HELLOs: while the store does not answer, they are refused at once.
            if daemon.durable {
                daemon.coordinator.storeUnavailable = try storeWatch.look()
            }
            for (index, _) in ready {
                switch index {
                case routerIndex:
                    // Take what is waiting, bounded (256 messages, 1 ms) so that the turn's answers are not held and
                    // the rest of the loop is not starved. Group commit: within those bounds, steps that come meanwhile
                    // join the turn — a loaded flowd writes one transaction for many steps; a lone step is written at
                    // once.
                    let gathering = ContinuousClock.now + .milliseconds(1)
                    var taken = 0
                    while taken < 256 && (taken == 0 || ContinuousClock.now < gathering) {
                        var next = try router.receive(dontWait: true)
                        // What arrived meanwhile becomes readable once libzmq has looked (a poll, no wait).
                        if next == nil, gathers, daemon.coordinator.pendingJournalEntries > 0,
                            ContinuousClock.now < gathering, !(try router.wait(for: .readable, within: .zero)).isEmpty
                        {
                            next = try router.receive(dontWait: true)
                        }
                        guard let message = next, message.count > 1 else { break }
                        taken += 1
                        let peer = String(decoding: message[0], as: UTF8.self)
                        let frames = Array(message.frames.dropFirst())
                        // Without --metrics the step path reads neither the clock nor the counters.
                        let started = metrics == nil ? nil : ContinuousClock.now
                        let stepsBefore = started == nil ? 0 : daemon.coordinator.counters.stepsIn
                        outgoing += daemon.coordinator.receive(
                            frames,
                            from: peer,
                            // Without CURVE the ZAP handler lets connections in with no user id.
                            userID: message.userID.flatMap { $0.isEmpty ? nil : $0 },
                            now: clock.now
                        )
                        if let started, let metrics, daemon.coordinator.counters.stepsIn != stepsBefore {
                            metrics.stepDecided(since: started)
                        }
                        switch daemon.coordinator.takeImpostor() {
                        case .key(let id):
                            // Cut once its answer is out, and its key refused a while (a connection of it would take
                            // the id again as soon as it is free).
                            intake.controls.cutSoon(message.sourceDescriptor, now: clock.now)
                            gate.banKey(of: id)
                        case .unknownID:
                            intake.controls.cutSoon(message.sourceDescriptor, now: clock.now)
                        case nil:
                            intake.controls.heard(message.sourceDescriptor, now: clock.now)
                        }
                    }
                case eventsIndex:
                    outgoing += try intake.take(from: events, into: &daemon.coordinator, now: clock.now)
                case writtenIndex:
                    writer.written.drain()
                    noteWriterProgress(&daemon.coordinator)
                    var released = try delivery.released()
                    forget(writer.takeLostSessions(), &daemon.coordinator, &delivery, &released, &outgoing)
                    unread.merge(deliver(released, router, events, webSockets), uniquingKeysWith: +)
                    for answer in writer.takeAnswers() {
                        if case .owned(.success(let owned?)) = answer {
                            let lost = daemon.coordinator.sessionsLost(owning: owned)
                            var none: [Outgoing] = []
                            forget(lost, &daemon.coordinator, &delivery, &none, &outgoing)
                        } else {
                            outgoing += fleetAnswered(answer, &daemon.coordinator)
                        }
                    }
                case controlIndex:
                    control.drain()
                    if stopRequested.withLock({ $0 }) {
                        break loop
                    }
                    applyReloadedSettings(&daemon.coordinator, watch: watch, webSockets: webSockets)
                    outgoing += applyReload(&daemon.coordinator)
                case monitorIndex:
                    try intake.readMonitors(now: clock.now)
                    Self.countRefusals(gate, into: &daemon.coordinator)
                case webSocketIndex:
                    guard let webSockets else { break }
                    outgoing += webSockets.take(into: &daemon.coordinator, now: clock.now)
                    for address in daemon.coordinator.takeSubscribersToCut() where !webSockets.cut(address: address) {
                        watch.cut(address: address)
                    }
                default:
                    break
                }
            }
            if clock.now >= daemon.coordinator.nextTick() {
                // Answers held longer than half a heartbeat: the store is slow or down, and every peer hears from
                // flowd all the same.
                let held = delivery.holds(longerThan: configuration.heartbeatInterval / 2)
                outgoing += daemon.coordinator.tick(now: clock.now, answersHeld: held)
                // What the subscriber watch did and the handshakes refused meanwhile (the events socket's
                // connections are followed on the watch's thread, which does not wake the loop).
                intake.report(into: &daemon.coordinator)
                Self.countRefusals(gate, into: &daemon.coordinator)
                if configuration.curve != nil {
                    let silent = intake.controls.cutSilent(
                        now: clock.now,
                        silence: configuration.heartbeatTimeout.milliseconds
                    )
                    if !silent.isEmpty {
                        daemon.coordinator.silentConnectionsCut(silent)
                    }
                }
                noteWriterProgress(&daemon.coordinator)
                // An instance of a fleet looks for dead instances' sessions to take over, and at the fleet.
                // Not while its database does not answer: the looks would only queue up behind the writes.
                if let fleet = configuration.fleet, !storeWatch.isDown,
                    clock.now - lastFleetLook >= Self.fleetLookInterval(fleet.lease)
                {
                    lastFleetLook = clock.now
                    if storeWatch.hasAnswered(for: fleet.lease) {
                        writer.ask(.adoptOrphans(limit: Self.adoptedPerLook))
                    }
                    writer.ask(.owned)
                    writer.ask(.members)
                }
                health.ticked()
                metrics?.publish(
                    daemon.coordinator.figures,
                    journalWaiting: daemon.coordinator.groupsWaiting,
                    answersWaiting: delivery.heldTurns
                )
                if clock.now - lastTrim >= Self.trimInterval {
                    // What a burst took (a flood of large messages) goes back to the system, not only to malloc.
                    lastTrim = clock.now
                    MemoryTrim.now()
                }
            }
            outgoing += daemon.coordinator.publishDueInspection(now: clock.now)
            unread.merge(
                deliver(delivery.take(daemon.coordinator.finishTurn(sending: outgoing)), router, events, webSockets),
                uniquingKeysWith: +
            )
            outgoing.removeAll(keepingCapacity: true)
            // After the turn's group: a session that ended in this turn is free in the store when asked about.
            for (session, claiming) in daemon.coordinator.takeSessionsToLocate() {
                writer.ask(.locate(session.rawValue, claiming: claiming))
            }
            // The watchdog hears from the loop itself: a loop that is stuck stops it.
            notifier.tick(now: clock.now) { status(daemon.coordinator) }
        }
        notifier.notify("STOPPING=1")
        health.stopping()
        logger.info(
            "stopping: every changed session is written, then the answers that waited for it go out (a store that does not answer is waited for \(Self.storeShutdownWait.components.seconds) s at most)"
        )
        // The last turn: every session written whole. What the turns answered leaves once it is written; if it
        // cannot be, nothing of it leaves, and flowd fails. A store that does not answer is waited for
        // `storeShutdownWait` at most.
        _ = deliver(
            delivery.take(daemon.coordinator.finishTurn(sending: outgoing, everything: true)),
            router,
            events,
            webSockets
        )
        let (written, failure) = delivery.drain(giveUpAfter: Self.storeShutdownWait)
        // What was written leaves, whatever happens to the rest.
        _ = deliver(written, router, events, webSockets)
        if let failure {
            logger.critical("cannot write the sessions at exit, the last answers are not sent: \(failure)")
            throw failure
        }
        if let reason = fencedOff.withLock({ $0 }) {
            throw DaemonError(reason)
        }
        // Everything is written: an instance of a fleet hands its sessions over at once.
        leaseKeeper?.stop(releasing: true)
        logger.info("flowd stopped")
    }

    /// An instance of a fleet that was away past its lease: what concerns the sessions it lost was not written,
    /// and never leaves; they are forgotten.
    private func forget(
        _ lost: Set<String>,
        _ coordinator: inout Coordinator,
        _ delivery: inout OrderedDelivery,
        _ released: inout [Outgoing],
        _ outgoing: inout [Outgoing]
    ) {
        guard !lost.isEmpty else { return }
        let concerned = { (message: Outgoing) in message.session.map(lost.contains) ?? false }
        released.removeAll(where: concerned)
        outgoing.removeAll(where: concerned)
        delivery.dropConcerning(lost)
        outgoing += coordinator.forgetLost(lost)
    }

    /// How often an instance of a fleet looks at the fleet (dead instances' sessions to take over, sessions it
    /// lost, the instances): a quarter of the lease, at most a second (milliseconds).
    static func fleetLookInterval(_ lease: Duration) -> Int64 {
        min(1000, max(50, lease.milliseconds / 4))
    }

    /// The sessions an instance of a fleet takes over from dead instances at each look, at most.
    static let adoptedPerLook = 1000

    /// Applies what a fleet's store answered; returns what it sends.
    private func fleetAnswered(_ answer: FleetAnswer, _ coordinator: inout Coordinator) -> [Outgoing] {
        switch answer {
        case .located(let session, let placement):
            return coordinator.located(SessionID(session), placement)
        case .adopted(.success(let stored)):
            guard !stored.snapshots.isEmpty || !stored.entries.isEmpty else { return [] }
            let (sessions, output) = coordinator.adoptOrphans(stored)
            if !sessions.isEmpty {
                let named = sessions.prefix(10).map(\.rawValue).joined(separator: " ")
                logger.info(
                    "took over \(sessions.count) session\(sessions.count == 1 ? "" : "s") of instances whose lease expired",
                    metadata: ["sessions": "\(named)\(sessions.count > 10 ? " …" : "")"]
                )
            }
            // A whole batch: there may be more, taken at once rather than at the next look.
            if Set(stored.snapshots.map(\.session) + stored.entries.map(\.session)).count >= Self.adoptedPerLook {
                writer.ask(.adoptOrphans(limit: Self.adoptedPerLook))
            }
            return output
        case .adopted(.failure(let error)):
            logger.warning("cannot look for sessions of dead instances: \(error)")
            return []
        case .members(.success(let members)):
            coordinator.noteMembers(members)
            return []
        case .owned:
            return []
        case .members(.failure(let error)):
            logger.debug("cannot read the fleet's instances: \(error)")
            return []
        }
    }

    /// Counts the handshakes the gate refused since the last call: at the cap, and of banned peers.
    private static func countRefusals(_ gate: ConnectionGate, into coordinator: inout Coordinator) {
        let refused = gate.takeRefused()
        if refused > 0 {
            coordinator.connectionsRefused(refused, open: gate.connections, cap: gate.cap)
        }
        let banned = gate.takeRefusedBanned()
        if banned > 0 {
            coordinator.bannedConnectionsRefused(banned)
        }
    }

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

    /// Gives the coordinator the writer's figures, for the `store` query.
    private func noteWriterProgress(_ coordinator: inout Coordinator) {
        guard coordinator.configuration.durable else { return }
        let progress = writer.progress
        if let statistics = progress.statistics {
            coordinator.storeStatistics = statistics
        }
        coordinator.groupsWaiting = progress.waiting
    }

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
    private func applyReloadedSettings(
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
    private func applyReload(_ coordinator: inout Coordinator) -> [Outgoing] {
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

    /// Sends and publishes; returns, per peer, the messages dropped because its queue is full (it does not read).
    /// A subscriber that does not read loses what is published beyond its queue (ZeroMQ drops it): a presenter
    /// sees the gap in its command sequence and resyncs.
    private func deliver(
        _ outgoing: [Outgoing],
        _ router: Socket,
        _ events: Socket,
        _ webSockets: WebSocketPeers?
    ) -> [String: Int] {
        var dropped: [String: Int] = [:]
        for message in outgoing {
            switch message {
            case .toPeer(let peer, let frames):
                // A WebSocket peer's connection, else the control socket's. A peer that went away: nothing to
                // deliver to (ROUTER_MANDATORY says so instead of dropping).
                if let sent = webSockets?.send(frames, to: peer) {
                    if !sent {
                        dropped[peer, default: 0] += 1
                    }
                } else if (try? router.send(leading: peer, frames: frames, dontWait: true)) == false {
                    dropped[peer, default: 0] += 1
                }
            case .publish(let topic, let frames):
                _ = try? events.send(leading: topic, frames: frames, dontWait: true)
                webSockets?.publish(frames, topic: topic)
            }
        }
        webSockets?.flush()
        return dropped
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
