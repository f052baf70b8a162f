import FlowCore
import FlowSpec
import Foundation
import Logging
import Synchronization
import ZeroMQ

/// flowd's sockets and event loop: one thread (the one that calls ``run()``) owns the sockets and the
/// ``Coordinator``; other threads only ask it to stop or reload, through an inproc socket.
public final class DaemonServer: Sendable {
    private let configuration: DaemonConfiguration
    private let specification: FlowSpecification
    private let context: Context
    private let controlEndpoint = "inproc://flowd-control-\(UUID().uuidString)"
    private let logger: Logger
    private let state = Mutex(State.idle)
    /// Flows read and checked off the loop, waiting for the loop to take them.
    private let reloaded = Mutex<FlowSpecification?>(nil)

    private enum State {
        case idle, running, stopped
    }

    /// Creates a server; nothing is bound until ``run()``.
    public init(
        configuration: DaemonConfiguration,
        specification: FlowSpecification,
        logger: Logger
    ) throws {
        self.configuration = configuration
        self.specification = specification
        self.logger = logger
        self.context = try Context()
    }

    /// Binds the endpoints and runs the event loop on the calling thread until ``stop()``.
    /// - Throws: when an endpoint cannot be bound (in use, bad address...).
    public func run() throws {
        let started = state.withLock { state in
            guard state == .idle else { return false }
            state = .running
            return true
        }
        guard started else { return }
        defer { state.withLock { $0 = .stopped } }
        // An ipc endpoint is a socket file: it goes when flowd stops, so no stale file is left behind.
        defer {
            for endpoint in configuration.controlEndpoints + configuration.eventsEndpoints
            where endpoint.hasPrefix("ipc://") {
                try? FileManager.default.removeItem(atPath: String(endpoint.dropFirst("ipc://".count)))
            }
        }

        let router = try Socket(.router, context: context)
        try router.setOption(.routerHandover, true)
        try router.setOption(.routerMandatory, true)
        try router.setOption(.maxMessageSize, configuration.maxMessageSize + 8192)
        try router.setOption(.sendHighWaterMark, 100_000)
        let events = try Socket(.extendedPublisher, context: context)
        try events.setOption(.extendedPublisherVerboser, true)
        try events.setOption(.sendHighWaterMark, 100_000)
        // PULL: any number of threads may PUSH commands (a PAIR takes one peer at a time and drops the next).
        let control = try Socket(.pull, context: context)
        try control.bind(controlEndpoint)
        let authenticator = try configuration.curve.map { curve in
            try secure([router, events], with: curve)
        }
        defer { authenticator?.stop() }
        var bound: (control: [String], events: [String]) = ([], [])
        for endpoint in configuration.controlEndpoints {
            try prepare(endpoint)
            try router.bind(endpoint)
            bound.control.append(try router.lastEndpoint)
        }
        for endpoint in configuration.eventsEndpoints {
            try prepare(endpoint)
            try events.bind(endpoint)
            bound.events.append(try events.lastEndpoint)
        }
        let controlList = bound.control.joined(separator: " ")
        let eventsList = bound.events.joined(separator: " ")
        logger.info(
            "flowd \(Coordinator.version) ready: control \(controlList) events \(eventsList) flows \(configuration.flowsFile) (\(specification.summary))"
        )

        var coordinator = Coordinator(
            specification: specification,
            configuration: configuration,
            epoch: UUID().uuidString,
            now: Self.now(),
            logger: logger
        )
        var poller = Poller()
        let routerIndex = poller.register(router)
        let eventsIndex = poller.register(events)
        let controlIndex = poller.register(control)
        loop: while true {
            let wait = max(0, coordinator.nextWakeUp() - Self.now())
            let ready = try poller.poll(timeout: .milliseconds(wait))
            for (index, _) in ready {
                switch index {
                case routerIndex:
                    // Take what is waiting, bounded so that one busy peer cannot starve the rest of the loop.
                    for _ in 0..<256 {
                        guard let message = try router.receive(dontWait: true), message.count > 1 else { break }
                        let peer = String(decoding: message[0], as: UTF8.self)
                        let frames = Array(message.frames.dropFirst())
                        deliver(
                            coordinator.receive(frames, from: peer, userID: message.userID, now: Self.now()),
                            router,
                            events
                        )
                    }
                case eventsIndex:
                    while let message = try events.receive(dontWait: true) {
                        guard let frame = message.frames.first, let kind = frame.first else { continue }
                        let subscribed = kind == 1
                        deliver(
                            coordinator.subscription(Array(frame.dropFirst()), subscribed: subscribed, now: Self.now()),
                            router,
                            events
                        )
                    }
                case controlIndex:
                    guard let message = try control.receive(dontWait: true) else { continue }
                    switch message.strings.first {
                    case "reload":
                        applyReload(&coordinator, router, events)
                    default:
                        break loop
                    }
                default:
                    break
                }
            }
            if Self.now() >= coordinator.nextTick() {
                deliver(coordinator.tick(now: Self.now()), router, events)
            }
            deliver(coordinator.publishDueInspection(now: Self.now()), router, events)
        }
        logger.info("flowd stopped")
    }

    /// Asks the event loop to stop; returns at once. Safe from any thread (a signal handler's queue).
    public func stop() {
        signal("stop")
    }

    /// Reads and checks the flows file on the calling thread (disk work stays off the event loop), then hands
    /// the new flows to the loop, which keeps every running session on them. An invalid file is refused here,
    /// with its problems logged, and the loop never hears of it. Safe from any thread.
    public func reload() {
        let specification: FlowSpecification
        do {
            specification = try FlowSpecification.load(contentsOf: configuration.flowsFile)
        } catch {
            logger.warning("reload refused, the running flows stay: \(error)")
            return
        }
        reloaded.withLock { $0 = specification }
        signal("reload")
    }

    private func signal(_ command: String) {
        // A linger, so that closing the socket right away does not drop the command before the loop reads it.
        guard let socket = try? Socket(.push, context: context, linger: .seconds(1)) else { return }
        try? socket.connect(controlEndpoint)
        _ = try? socket.send(Message(strings: [command]), dontWait: false)
    }

    /// Switches the coordinator to the flows ``reload()`` prepared.
    private func applyReload(_ coordinator: inout Coordinator, _ router: Socket, _ events: Socket) {
        guard let specification = reloaded.withLock({ $0.take() }) else { return }
        do {
            deliver(try coordinator.reload(specification), router, events)
            logger.info("flows reloaded from \(configuration.flowsFile): \(specification.summary)")
        } catch {
            // A running session uses a flow the new file no longer has.
            logger.warning("reload refused, the running flows stay: \(error)")
        }
    }

    private func deliver(_ outgoing: [Outgoing], _ router: Socket, _ events: Socket) {
        for message in outgoing {
            switch message {
            case .toPeer:
                // A peer that went away: nothing to deliver to (ROUTER_MANDATORY says so instead of dropping).
                _ = try? router.send(frames: message.frames, dontWait: true)
            case .publish:
                _ = try? events.send(frames: message.frames, dontWait: true)
            }
        }
    }

    /// Makes the sockets CURVE servers, and starts the ZAP handler that lets in only authorized keys, each
    /// with its id as the user id that HELLO must match.
    private func secure(_ sockets: [Socket], with curve: CurveSettings) throws -> ZAPHandler {
        let secretKey = try CurveKey(z85: curve.secretKey)
        var allowed: [CurveKey: String] = [:]
        for (id, key) in curve.authorizedKeys {
            allowed[try CurveKey(z85: key)] = id
        }
        let authorized = allowed
        let logger = logger
        let handler = try ZAPHandler(context: context) { request in
            guard let key = request.clientKey, let id = authorized[key] else {
                logger.info(
                    "refused a client key: \(request.clientKey?.z85 ?? "none (\(request.mechanism))") from \(request.address)"
                )
                return .deny(reason: "unknown key")
            }
            return .allow(userID: id)
        }
        for socket in sockets {
            try socket.makeCurveServer(secretKey: secretKey)
        }
        return handler
    }

    /// Makes the directory of an ipc endpoint.
    private func prepare(_ endpoint: String) throws {
        guard endpoint.hasPrefix("ipc://") else { return }
        let path = String(endpoint.dropFirst("ipc://".count))
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    static func now() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1000)
    }
}
