import FlowCore
import FlowStore
import FlowWire
import ZeroMQ

/// flowd's event loop, on the thread that runs the server: it polls the sockets and the pipes, turns what each
/// source has into the coordinator's inputs, and at the end of each turn hands the coordinator's effects to the
/// journal writer and the sockets (``OrderedDelivery`` holds the messages until their writes are done).
///
/// A turn: the wall clock's offset; with CURVE, the connections that ended; replies dropped last turn; the store's
/// availability; each ready source (``Source``); the tick when due; the inspection stream; the turn's effects out.
final class DaemonLoop {
    /// What the loop polls.
    enum Source {
        case control, events, wake, written, monitor, webSocket
    }

    private let server: DaemonServer
    private var daemon: DaemonState
    private let sockets: ServerSockets
    private var intake: SubscriptionIntake
    private let gate: ConnectionGate
    private let watch: SubscriberWatch
    private let webSockets: WebSocketPeers?
    /// The handshake every connection goes through (stopped with the loop).
    private let authenticator: ZAPHandler
    /// systemd's readiness, status and watchdog (Type=notify).
    private var notifier = SystemdNotifier()
    private var delivery: OrderedDelivery
    private var storeWatch: StoreWatch
    private var poller = Poller()
    /// The source at each of the poller's indices (it numbers them 0, 1, 2... as they are registered).
    private var sources: [Source] = []
    /// What the turn sends, gathered as its inputs are taken.
    private var outgoing: [Outgoing]
    /// Per peer, the replies it did not read last turn.
    private var unread: [String: Int] = [:]
    private var chores: Chores

    /// When the loop last did what it does from time to time, on flowd's clock.
    private struct Chores {
        var lastTrim: Int64
        var lastFleetLook: Int64
    }

    private var configuration: DaemonConfiguration { server.configuration }
    private var clock: DaemonClock { daemon.clock }

    init(
        server: DaemonServer,
        daemon: DaemonState,
        sockets: ServerSockets,
        intake: SubscriptionIntake,
        gate: ConnectionGate,
        watch: SubscriberWatch,
        webSockets: WebSocketPeers?,
        authenticator: ZAPHandler
    ) throws {
        self.server = server
        self.daemon = daemon
        self.sockets = sockets
        self.intake = intake
        self.gate = gate
        self.watch = watch
        self.webSockets = webSockets
        self.authenticator = authenticator
        outgoing = daemon.pendingOutput
        delivery = OrderedDelivery(
            writer: daemon.durable ? server.writer : nil,
            waitsForWrites: server.configuration.durability != .off
        )
        storeWatch = StoreWatch(
            availability: server.writer.availability,
            health: server.health,
            metrics: server.metrics,
            logger: server.logger
        )
        chores = Chores(lastTrim: daemon.clock.now, lastFleetLook: daemon.clock.now)
        add(.control, at: poller.register(sockets.router))
        add(.events, at: poller.register(sockets.events))
        add(.wake, at: poller.register(fileDescriptor: server.control.fileDescriptor))
        add(.written, at: poller.register(fileDescriptor: server.writer.written.fileDescriptor))
        add(.monitor, at: poller.register(sockets.controlMonitor.socket))
        if let webSockets {
            add(.webSocket, at: poller.register(fileDescriptor: webSockets.wakeDescriptor))
        }
        // Under systemd (Type=notify): ready once the endpoints are bound and the sessions restored.
        notifier.notify("READY=1\nSTATUS=ready: \(status)")
        server.health.becameReady()
    }

    /// Stops the WebSocket endpoint and the handshake: nothing more comes in.
    func close() {
        webSockets?.stop()
        authenticator.stop()
    }

    /// Notes the source the poller registered at `index` (the next one: it numbers them as they come).
    private func add(_ source: Source, at index: Int) {
        precondition(index == sources.count, "the poller numbers what it polls 0, 1, 2... as it is registered")
        sources.append(source)
    }

    /// What systemd's status line says.
    var status: String {
        "\(daemon.coordinator.sessionCount) sessions, \(daemon.coordinator.peerCount) peers"
    }

    /// Runs turns until a stop is asked.
    func run() throws {
        while !server.stopRequested.withLock({ $0 }) {
            guard try turn() else { return }
        }
    }

    /// One turn; `false` when a stop was asked during it.
    private func turn() throws -> Bool {
        let wakeUp = min(daemon.coordinator.nextWakeUp(), intake.controls.nextCut ?? .max, notifier.nextDue ?? .max)
        let ready = try poller.poll(timeout: .milliseconds(max(0, wakeUp - clock.now)))
        try beginTurn()
        for (index, _) in ready {
            guard try take(from: sources[index]) else { return false }
        }
        if clock.now >= daemon.coordinator.nextTick() {
            tick()
        }
        finishTurn()
        return true
    }

    /// What comes before the turn's inputs.
    private func beginTurn() throws {
        // The two clocks are read apart, in whole milliseconds: their difference jitters by one either way. Times
        // flowd publishes must not go back, so the offset goes back only for a real step of the wall clock (more
        // than a second).
        let offset = DaemonClock.wallNow - clock.now
        if offset > daemon.coordinator.wallOffset || daemon.coordinator.wallOffset - offset > 1000 {
            daemon.coordinator.wallOffset = offset
        }
        // Connections that ended are known before anything is sent in this turn: with CURVE, a peer whose
        // connection may have ended is sent nothing until its key is heard again (a free id goes to whoever asks).
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
    }

    /// Takes what `source` has; `false` when it says to stop.
    private func take(from source: Source) throws -> Bool {
        switch source {
        case .control:
            try receiveControl()
        case .events:
            outgoing += try intake.take(from: sockets.events, into: &daemon.coordinator, now: clock.now)
        case .written:
            try writerProgressed()
        case .wake:
            server.control.drain()
            if server.stopRequested.withLock({ $0 }) {
                return false
            }
            server.applyReloadedSettings(&daemon.coordinator, watch: watch, webSockets: webSockets)
            outgoing += server.applyReload(&daemon.coordinator)
        case .monitor:
            try intake.readMonitors(now: clock.now)
            countRefusals()
        case .webSocket:
            guard let webSockets else { break }
            outgoing += webSockets.take(into: &daemon.coordinator, now: clock.now)
        }
        return true
    }

    /// Takes what waits on the control socket, bounded (256 messages, 1 ms) so that the turn's answers are not held
    /// and the rest of the loop is not starved. Group commit: within those bounds, steps that come meanwhile join
    /// the turn — a loaded flowd writes one transaction for many steps; a lone step is written at once.
    private func receiveControl() throws {
        let router = sockets.router
        let gathers = daemon.durable && configuration.durability != .off
        let gathering = ContinuousClock.now + .milliseconds(1)
        var taken = 0
        while taken < 256 && (taken == 0 || ContinuousClock.now < gathering) {
            var next = try router.receive(dontWait: true)
            // What arrived meanwhile becomes readable once libzmq has looked (a poll, no wait).
            if next == nil, gathers, daemon.coordinator.pendingJournalEntries > 0, ContinuousClock.now < gathering,
                !(try router.wait(for: .readable, within: .zero)).isEmpty
            {
                next = try router.receive(dontWait: true)
            }
            guard let message = next, message.count > 1 else { break }
            taken += 1
            received(message)
        }
    }

    /// One message of the control socket, through the coordinator.
    private func received(_ message: ZeroMQ.Message) {
        let peer = String(decoding: message[0], as: UTF8.self)
        // Without --metrics the step path reads neither the clock nor the counters.
        let started = server.metrics == nil ? nil : ContinuousClock.now
        let stepsBefore = started == nil ? 0 : daemon.coordinator.counters.stepsIn
        let reception = daemon.coordinator.receive(
            Array(message.frames.dropFirst()),
            from: peer,
            // Without CURVE the ZAP handler lets connections in with no user id.
            userID: message.userID.flatMap { $0.isEmpty ? nil : $0 },
            now: clock.now
        )
        outgoing += reception.messages
        if let started, let metrics = server.metrics, daemon.coordinator.counters.stepsIn != stepsBefore {
            metrics.stepDecided(since: started)
        }
        switch reception.impostor {
        case .key(let id):
            // Cut once its answer is out, and its key refused a while (a connection of it would take the id again
            // as soon as it is free).
            intake.controls.cutSoon(message.sourceDescriptor, now: clock.now)
            gate.banKey(of: id)
        case .unknownID:
            intake.controls.cutSoon(message.sourceDescriptor, now: clock.now)
        case nil:
            intake.controls.heard(message.sourceDescriptor, now: clock.now)
        }
    }

    /// The journal writer wrote groups (or answered a fleet's question): what waited for them leaves.
    private func writerProgressed() throws {
        let writer = server.writer
        writer.written.drain()
        noteWriterProgress()
        var released = try delivery.released()
        forget(writer.takeLostSessions(), &released)
        unread.merge(deliver(released), uniquingKeysWith: +)
        for answer in writer.takeAnswers() {
            if case .owned(.success(let owned?)) = answer {
                var none: [Outgoing] = []
                forget(daemon.coordinator.sessionsLost(owning: owned), &none)
            } else {
                outgoing += fleetAnswered(answer)
            }
        }
    }

    /// Lets time pass: heartbeats, deadlines, what the other threads counted, a fleet's looks, metrics.
    private func tick() {
        // Answers held longer than half a heartbeat: the store is slow or down, and every peer hears from flowd
        // all the same.
        let held = delivery.holds(longerThan: configuration.heartbeatInterval / 2)
        outgoing += daemon.coordinator.tick(now: clock.now, answersHeld: held)
        // What the subscriber watch did and the handshakes refused meanwhile (the events socket's connections are
        // followed on the watch's thread, which does not wake the loop).
        intake.report(into: &daemon.coordinator)
        countRefusals()
        if configuration.curve != nil {
            let silent = intake.controls.cutSilent(now: clock.now, silence: configuration.heartbeatTimeout.milliseconds)
            if !silent.isEmpty {
                daemon.coordinator.silentConnectionsCut(silent)
            }
        }
        noteWriterProgress()
        lookAtTheFleet()
        server.health.ticked()
        server.metrics?.publish(
            daemon.coordinator.figures,
            journalWaiting: daemon.coordinator.groupsWaiting,
            answersWaiting: delivery.heldTurns
        )
        if clock.now - chores.lastTrim >= DaemonServer.trimInterval {
            // What a burst took (a flood of large messages) goes back to the system, not only to malloc.
            chores.lastTrim = clock.now
            MemoryTrim.now()
        }
    }

    /// An instance of a fleet looks for dead instances' sessions to take over, and at the fleet. Not while its
    /// database does not answer: the looks would only queue up behind the writes.
    private func lookAtTheFleet() {
        guard let fleet = configuration.fleet, !storeWatch.isDown,
            clock.now - chores.lastFleetLook >= DaemonServer.fleetLookInterval(fleet.lease)
        else { return }
        chores.lastFleetLook = clock.now
        if storeWatch.hasAnswered(for: fleet.lease) {
            server.writer.ask(.adoptOrphans(limit: DaemonServer.adoptedPerLook))
        }
        server.writer.ask(.owned)
        server.writer.ask(.members)
    }

    /// The turn's effects: its writes to the writer, its messages out once written.
    private func finishTurn() {
        outgoing += daemon.coordinator.publishDueInspection(now: clock.now)
        let effects = daemon.coordinator.finishTurn(sending: outgoing)
        unread.merge(deliver(delivery.take(effects)), uniquingKeysWith: +)
        outgoing.removeAll(keepingCapacity: true)
        for address in effects.subscribersToCut where webSockets?.cut(address: address) != true {
            watch.cut(address: address)
        }
        // After the turn's group: a session that ended in this turn is free in the store when asked about.
        for (session, claiming) in effects.sessionsToLocate {
            server.writer.ask(.locate(session.rawValue, claiming: claiming))
        }
        // The watchdog hears from the loop itself: a loop that is stuck stops it.
        notifier.tick(now: clock.now) { self.status }
    }

    /// The last turn: every session written whole. What the turns answered leaves once it is written; if it cannot
    /// be, nothing of it leaves, and the error is thrown. A store that does not answer is waited for
    /// ``DaemonServer/storeShutdownWait`` at most.
    func finish() throws {
        notifier.notify("STOPPING=1")
        server.health.stopping()
        server.logger.info(
            "stopping: every changed session is written, then the answers that waited for it go out (a store that does not answer is waited for \(DaemonServer.storeShutdownWait.components.seconds) s at most)"
        )
        _ = deliver(delivery.take(daemon.coordinator.finishTurn(sending: outgoing, everything: true)))
        let (written, failure) = delivery.drain(giveUpAfter: DaemonServer.storeShutdownWait)
        // What was written leaves, whatever happens to the rest.
        _ = deliver(written)
        if let failure {
            server.logger.critical("cannot write the sessions at exit, the last answers are not sent: \(failure)")
            throw failure
        }
    }

    // MARK: Helpers

    /// An instance of a fleet that was away past its lease: what concerns the sessions it lost was not written,
    /// and never leaves; they are forgotten.
    private func forget(_ lost: Set<String>, _ released: inout [Outgoing]) {
        guard !lost.isEmpty else { return }
        let concerned = { (message: Outgoing) in message.session.map(lost.contains) ?? false }
        released.removeAll(where: concerned)
        outgoing.removeAll(where: concerned)
        delivery.dropConcerning(lost)
        outgoing += daemon.coordinator.forgetLost(lost)
    }

    /// Applies what a fleet's store answered; returns what it sends.
    private func fleetAnswered(_ answer: FleetAnswer) -> [Outgoing] {
        switch answer {
        case .located(let session, let placement):
            return daemon.coordinator.located(SessionID(session), placement)
        case .adopted(.success(let stored)):
            return adopted(stored)
        case .adopted(.failure(let error)):
            server.logger.warning("cannot look for sessions of dead instances: \(error)")
            return []
        case .members(.success(let members)):
            daemon.coordinator.noteMembers(members)
            return []
        case .owned:
            return []
        case .members(.failure(let error)):
            server.logger.debug("cannot read the fleet's instances: \(error)")
            return []
        }
    }

    /// Dead instances' sessions taken over.
    private func adopted(_ stored: StoredState) -> [Outgoing] {
        guard !stored.snapshots.isEmpty || !stored.entries.isEmpty else { return [] }
        let (sessions, output) = daemon.coordinator.adoptOrphans(stored)
        if !sessions.isEmpty {
            let named = sessions.prefix(10).map(\.rawValue).joined(separator: " ")
            server.logger.info(
                "took over \(sessions.count) session\(sessions.count == 1 ? "" : "s") of instances whose lease expired",
                metadata: ["sessions": "\(named)\(sessions.count > 10 ? " …" : "")"]
            )
        }
        // A whole batch: there may be more, taken at once rather than at the next look.
        if Set(stored.snapshots.map(\.session) + stored.entries.map(\.session)).count >= DaemonServer.adoptedPerLook {
            server.writer.ask(.adoptOrphans(limit: DaemonServer.adoptedPerLook))
        }
        return output
    }

    /// Counts the handshakes the gate refused since the last call: at the cap, and of banned peers.
    private func countRefusals() {
        let refused = gate.takeRefused()
        if refused > 0 {
            daemon.coordinator.connectionsRefused(refused, open: gate.connections, cap: gate.cap)
        }
        let banned = gate.takeRefusedBanned()
        if banned > 0 {
            daemon.coordinator.bannedConnectionsRefused(banned)
        }
    }

    /// Gives the coordinator the writer's figures, for the `store` query.
    private func noteWriterProgress() {
        guard daemon.coordinator.configuration.durable else { return }
        let progress = server.writer.progress
        if let statistics = progress.statistics {
            daemon.coordinator.storeStatistics = statistics
        }
        daemon.coordinator.groupsWaiting = progress.waiting
    }

    /// Sends and publishes; returns, per peer, the messages dropped because its queue is full (it does not read).
    /// A subscriber that does not read loses what is published beyond its queue (ZeroMQ drops it): a presenter
    /// sees the gap in its command sequence and resyncs.
    private func deliver(_ outgoing: [Outgoing]) -> [String: Int] {
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
                } else if (try? sockets.router.send(leading: peer, frames: frames, dontWait: true)) == false {
                    dropped[peer, default: 0] += 1
                }
            case .publish(let topic, let frames):
                _ = try? sockets.events.send(leading: topic, frames: frames, dontWait: true)
                webSockets?.publish(frames, topic: topic)
            }
        }
        webSockets?.flush()
        return dropped
    }
}
