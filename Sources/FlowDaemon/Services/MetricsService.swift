import FlyingFox
import FlyingSocks
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// flowd's HTTP endpoint for operators (`--metrics HOST:PORT`): `GET /metrics` (Prometheus's text format),
/// `GET /livez` and `GET /readyz` (200 or 503 with the reason, for systemd-free supervisors, load balancers and
/// Kubernetes probes). Runs until a graceful shutdown; a port that cannot be bound stops flowd with a clear error.
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
        let server: HTTPServer
        do {
            let socketAddress: any SocketAddress =
                address.isIPv6
                ? try .inet6(ip6: address.host, port: address.port) : try .inet(ip4: address.host, port: address.port)
            server = HTTPServer(address: socketAddress, timeout: 10, logger: .disabled)
        } catch {
            throw DaemonError("metrics (--metrics \(address)): not an address this machine can listen on: \(error)")
        }
        await routes(on: server)
        let logger = logger
        let bound = bound
        let address = address
        let stopping = StopFlag()
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        try await server.run()
                    } catch  where !stopping.isSet {
                        throw DaemonError(Self.bindFailure(address, error))
                    } catch {
                        // Closed by the shutdown below.
                    }
                }
                group.addTask {
                    try await server.waitUntilListening(timeout: 10)
                    var listening = address
                    switch await server.listeningAddress {
                    case .ip4(_, let port)?, .ip6(_, let port)?:
                        listening = MetricsAddress(host: address.host, port: port)
                    default:
                        break
                    }
                    logger.info("metrics and health checks on http://\(listening)/metrics, /livez, /readyz")
                    bound?(listening)
                }
                // The first failure (a port in use) ends the group; serving ends only with the shutdown.
                while try await group.next() != nil {}
            }
        } onGracefulShutdown: {
            stopping.set()
            Task { await server.stop() }
        }
    }

    /// What to say when the server cannot listen.
    static func bindFailure(_ address: MetricsAddress, _ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("EADDRINUSE") || text.lowercased().contains("address already in use") {
            return
                "metrics (--metrics \(address)): the port \(address.port) is in use by another process; choose another"
        }
        if text.contains("EADDRNOTAVAIL") || text.lowercased().contains("cannot assign") {
            return "metrics (--metrics \(address)): \(address.host) is not an address of this machine"
        }
        if text.contains("EACCES") || text.lowercased().contains("permission denied") {
            return "metrics (--metrics \(address)): permission denied (ports below 1024 need a privilege)"
        }
        return "metrics (--metrics \(address)): cannot listen: \(text)"
    }

    private func routes(on server: HTTPServer) async {
        let metrics = metrics
        let health = health
        await server.appendRoute("GET /metrics") { _ in
            HTTPResponse(
                statusCode: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: Data(metrics.exposition())
            )
        }
        await server.appendRoute("GET /livez") { _ in Self.answer(health.liveness, healthy: "alive") }
        await server.appendRoute("GET /readyz") { _ in Self.answer(health.readiness, healthy: "ready") }
        await server.appendRoute("GET /") { _ in
            HTTPResponse(
                statusCode: .ok,
                headers: [.contentType: "text/plain; charset=utf-8"],
                body: Data("flowd: /metrics (Prometheus text format), /livez, /readyz\n".utf8)
            )
        }
        await server.appendRoute("*") { _ in
            HTTPResponse(
                statusCode: .notFound,
                headers: [.contentType: "text/plain; charset=utf-8"],
                body: Data("not found: flowd serves GET /metrics, /livez and /readyz\n".utf8)
            )
        }
    }

    private static func answer(_ verdict: DaemonHealth.Verdict, healthy: String) -> HTTPResponse {
        switch verdict {
        case .healthy:
            HTTPResponse(
                statusCode: .ok,
                headers: [.contentType: "text/plain; charset=utf-8"],
                body: Data("\(healthy)\n".utf8)
            )
        case .unhealthy(let reason):
            HTTPResponse(
                statusCode: .serviceUnavailable,
                headers: [.contentType: "text/plain; charset=utf-8"],
                body: Data("\(reason)\n".utf8)
            )
        }
    }
}

/// Set once the service is shutting down: the server's end is then expected, not a failure.
private final class StopFlag: Sendable {
    private let flag = Mutex(false)

    var isSet: Bool { flag.withLock { $0 } }

    func set() {
        flag.withLock { $0 = true }
    }
}
