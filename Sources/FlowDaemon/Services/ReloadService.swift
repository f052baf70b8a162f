import ServiceLifecycle
import UnixSignals

/// Reloads the flows file on SIGHUP (`systemctl reload flowd`), until the group shuts down.
public struct ReloadService: Service {
    private let server: DaemonServer

    /// A service that reloads `server`'s flows.
    public init(server: DaemonServer) {
        self.server = server
    }

    public func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            server.reload()
        }
    }
}
