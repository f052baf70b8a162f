import Foundation
import ServiceLifecycle

/// The ``JournalWriter`` as a service: it writes on a thread of its own (SQLite blocks), and a graceful shutdown
/// lets it write every group handed over before it returns. List it before the ``CoordinatorService``: services
/// stop in reverse order, so the loop hands over its last group before the writer is asked to stop.
public struct JournalWriterService: Service {
    private let writer: JournalWriter

    /// A service running `writer`.
    public init(writer: JournalWriter) {
        self.writer = writer
    }

    /// Writes until a graceful shutdown or cancellation, then writes what is left and returns.
    public func run() async {
        let writer = writer
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let thread = Thread {
                        writer.run()
                        continuation.resume()
                    }
                    thread.name = "flowd journal"
                    thread.start()
                }
            } onGracefulShutdown: {
                writer.close()
            }
        } onCancel: {
            writer.close()
        }
    }
}
