import Foundation
import ServiceLifecycle
import Synchronization

/// The ``JournalWriter`` as a service: it writes on a thread of its own (SQLite blocks), and a graceful shutdown
/// lets it write every group handed over before it returns. List it before the ``CoordinatorService``: services
/// stop in reverse order, so the loop hands over its last group before the writer is asked to stop.
///
/// A store that does not answer is not waited for at a stop (``JournalWriter/close()``); a write stuck in a call
/// that never returns (a database server that hangs) is left behind after `stuckWriteWait`: the process ends
/// without it, and what it would have acknowledged was never sent.
public struct JournalWriterService: Service {
    private let writer: JournalWriter

    /// How long a stop waits for the writer's thread once it was asked to stop.
    static let stuckWriteWait: Duration = .seconds(10)

    /// A service running `writer`.
    public init(writer: JournalWriter) {
        self.writer = writer
    }

    /// Writes until a graceful shutdown or cancellation, then writes what is left and returns.
    public func run() async {
        let writer = writer
        let ended = OnceSignal()
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    ended.onSignal { continuation.resume() }
                    let thread = Thread {
                        writer.run()
                        ended.signal()
                    }
                    thread.name = "flowd journal"
                    thread.start()
                }
            } onGracefulShutdown: {
                Self.close(writer, ended)
            }
        } onCancel: {
            Self.close(writer, ended)
        }
    }

    private static func close(_ writer: JournalWriter, _ ended: OnceSignal) {
        writer.close()
        let wait = Double(stuckWriteWait.components.seconds)
        DispatchQueue.global().asyncAfter(deadline: .now() + wait) { ended.signal() }
    }
}

/// Runs its action once, at the first of several signals.
private final class OnceSignal: Sendable {
    private let state = Mutex<(signalled: Bool, action: (@Sendable () -> Void)?)>((false, nil))

    /// What to run at the first signal (at once if it came already).
    func onSignal(_ action: @escaping @Sendable () -> Void) {
        let run = state.withLock { state -> Bool in
            if state.signalled { return true }
            state.action = action
            return false
        }
        if run { action() }
    }

    func signal() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.signalled else { return nil }
            state.signalled = true
            defer { state.action = nil }
            return state.action
        }
        action?()
    }
}
