import Foundation
import ServiceLifecycle

/// flowd's event loop as a service: the ``DaemonServer`` runs on a thread of its own (its poll blocks, and its
/// sockets belong to that thread), and a graceful shutdown asks it to stop — it then writes every changed session
/// and returns.
public struct CoordinatorService: Service {
    private let server: DaemonServer

    /// A service running `server`.
    public init(server: DaemonServer) {
        self.server = server
    }

    /// Runs the loop until a graceful shutdown or cancellation; rethrows what stopped it otherwise (a state that
    /// cannot be used, an endpoint that cannot be bound, a journal that cannot be written).
    public func run() async throws {
        let server = server
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let thread = Thread {
                        do {
                            try server.run()
                            continuation.resume()
                        } catch {
                            continuation.resume(throwing: error)
                        }
                    }
                    thread.name = "flowd loop"
                    thread.start()
                }
            } onGracefulShutdown: {
                server.stop()
            }
        } onCancel: {
            server.stop()
        }
    }
}
