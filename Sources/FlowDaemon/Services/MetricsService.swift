import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// flowd's HTTP endpoint for operators (`--metrics HOST:PORT`): `GET /metrics` (Prometheus's text format),
/// `GET /livez` and `GET /readyz` (200 or 503 with the reason, for supervisors, load balancers and Kubernetes
/// probes), served by SwiftNIO's HTTP/1.1 on one event loop thread of its own. Runs until a graceful shutdown; an
/// address that cannot be bound stops flowd with a clear error.
public struct MetricsService: Service {
    private let address: MetricsAddress
    private let metrics: DaemonMetrics
    private let health: DaemonHealth
    private let logger: Logger
    private let bound: (@Sendable (MetricsAddress) -> Void)?

    /// A service serving `metrics` and `health` at `address`.
    /// - Parameters:
    ///   - address: where to listen.
    ///   - metrics: what `/metrics` shows.
    ///   - health: what `/livez` and `/readyz` say.
    ///   - logger: where the address it listens on is logged.
    ///   - bound: called with the address once it listens (its port, when 0 was asked for).
    public init(
        address: MetricsAddress,
        metrics: DaemonMetrics,
        health: DaemonHealth,
        logger: Logger,
        bound: (@Sendable (MetricsAddress) -> Void)? = nil
    ) {
        self.address = address
        self.metrics = metrics
        self.health = health
        self.logger = logger
        self.bound = bound
    }

    /// Serves until the group shuts down gracefully or is cancelled.
    /// - Throws: ``DaemonError`` when the address cannot be bound (in use, not this machine's).
    public func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let metrics = metrics
        let health = health
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(
                            MetricsHTTPHandler(metrics: metrics, health: health)
                        )
                    }
                }
                .childChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: address.host, port: Int(address.port))
                .get()
        } catch {
            try? await group.shutdownGracefully()
            throw DaemonError(Self.bindFailure(address, error))
        }
        let listening = MetricsAddress(
            host: address.host,
            port: UInt16(channel.localAddress?.port ?? Int(address.port))
        )
        logger.info("metrics and health checks on http://\(listening)/metrics, /livez, /readyz")
        bound?(listening)
        await withGracefulShutdownHandler {
            try? await channel.closeFuture.get()
        } onGracefulShutdown: {
            channel.close(promise: nil)
        }
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
