import FlowHTTP
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

/// flowd's HTTP endpoint for operators (`--metrics HOST:PORT`): `GET /metrics` (Prometheus's text format),
/// `GET /livez` and `GET /readyz` (200 or 503 with the reason, for supervisors, load balancers and Kubernetes
/// probes), served by SwiftNIO's HTTP/1.1 on one event loop thread of its own.
///
/// It is bound before flowd says it is ready (``bind(_:metrics:health:logger:)``), so an address in use stops flowd
/// at start. A client cannot make flowd run out of files through it: at most ``connectionLimit`` connections are
/// served at once (more are closed at once) and a connection silent for ``idleTimeout`` is closed.
public final class MetricsService: Service {
    /// The most connections served at once.
    public static let connectionLimit = 32
    /// How long a connection may stay silent (no request, or half of one).
    public static let idleTimeout = TimeAmount.seconds(10)

    /// Where it listens (the port the system chose, when 0 was asked for).
    public let address: MetricsAddress
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup

    private init(address: MetricsAddress, channel: any Channel, group: MultiThreadedEventLoopGroup) {
        self.address = address
        self.channel = channel
        self.group = group
    }

    /// Binds `address` and starts serving `metrics` and `health`.
    /// - Parameters:
    ///   - address: where to listen.
    ///   - metrics: what `/metrics` shows.
    ///   - health: what `/livez` and `/readyz` say.
    ///   - logger: where the address it listens on is logged.
    /// - Throws: ``DaemonError`` saying why the address cannot be bound (in use, not this machine's, a privilege).
    public static func bind(
        _ address: MetricsAddress,
        metrics: DaemonMetrics,
        health: DaemonHealth,
        logger: Logger
    ) async throws -> MetricsService {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let connections = ConnectionCount(limit: connectionLimit)
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let operations = channel.pipeline.syncOperations
                        try operations.addHandler(ConnectionLimitHandler(connections))
                        try operations.addHandler(IdleStateHandler(readTimeout: idleTimeout))
                        try operations.configureHTTPServerPipeline(withErrorHandling: true)
                        let answers = MetricsEndpointAnswers(metrics: metrics, health: health)
                        try operations.addHandler(HTTPRequestResponder { head, _ in answers.answer(head) })
                    }
                }
                .bind(host: address.host, port: Int(address.port))
                .get()
        } catch {
            try? await group.shutdownGracefully()
            throw DaemonError(bindFailure(address, error))
        }
        let bound = MetricsAddress(host: address.host, port: UInt16(channel.localAddress?.port ?? Int(address.port)))
        logger.info("metrics and health checks on http://\(bound)/metrics, /livez, /readyz")
        return MetricsService(address: bound, channel: channel, group: group)
    }

    /// Serves until the group shuts down gracefully or is cancelled; then closes the listener.
    public func run() async throws {
        let channel = channel
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                try? await channel.closeFuture.get()
            } onGracefulShutdown: {
                channel.close(promise: nil)
            }
        } onCancel: {
            channel.close(promise: nil)
        }
        try? await group.shutdownGracefully()
    }

    /// Closes the listener without serving (flowd could not start).
    public func close() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    /// What to say when the server cannot listen.
    static func bindFailure(_ address: MetricsAddress, _ error: any Error) -> String {
        let text = "\(error)"
        let lowered = text.lowercased()
        if lowered.contains("address already in use") || text.contains("EADDRINUSE") {
            return
                "metrics (--metrics \(address)): the port \(address.port) is in use by another process; choose another"
        }
        if lowered.contains("cannot assign requested address") || text.contains("EADDRNOTAVAIL") {
            return "metrics (--metrics \(address)): \(address.host) is not an address of this machine"
        }
        if lowered.contains("permission denied") || text.contains("EACCES") {
            return "metrics (--metrics \(address)): permission denied (ports below 1024 need a privilege)"
        }
        return "metrics (--metrics \(address)): cannot listen: \(text)"
    }
}

/// How many connections are open, against a limit.
final class ConnectionCount: Sendable {
    private let open = Mutex(0)
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts one more connection if the limit allows it.
    func take() -> Bool {
        open.withLock { open in
            guard open < limit else { return false }
            open += 1
            return true
        }
    }

    func release() {
        open.withLock { $0 -= 1 }
    }
}

/// Closes a connection beyond the limit as soon as it opens, and counts the others out when they close.
final class ConnectionLimitHandler: ChannelInboundHandler {
    typealias InboundIn = NIOAny
    private let connections: ConnectionCount
    private var counted = false

    init(_ connections: ConnectionCount) {
        self.connections = connections
    }

    func channelActive(context: ChannelHandlerContext) {
        guard connections.take() else {
            context.close(promise: nil)
            return
        }
        counted = true
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if counted {
            counted = false
            connections.release()
        }
        context.fireChannelInactive()
    }
}
