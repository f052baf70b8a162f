import Synchronization

/// One caller waiting for an answer from the connection's thread (a step's fate, a query's reply, the first
/// WELCOME). It is resumed exactly once: by the answer, by a failure, or by the caller's task being cancelled —
/// whichever comes first. Cancelling stops the wait only; what was sent stays sent.
final class PendingReply<Value: Sendable>: Sendable {
    private enum State {
        case waiting
        // Unsafe, not checked: the state below already guarantees one resumption, and a checked continuation costs an
        // allocation per wait (a step's fate is one).
        case suspended(UnsafeContinuation<Value, any Error>)
        case done
    }

    private let state = Mutex(State.waiting)

    init() {}

    /// Suspends the calling task until ``resume(with:)`` (or cancellation). `enqueue` runs once the caller is
    /// suspended: it hands this reply to the connection's thread — always, even when the task was cancelled
    /// before, so that what was asked still happens (and what was counted for it is released).
    /// - Throws: the failure it is resumed with (a ``FlowBusError``), or ``FlowBusError/Code/cancelled`` when the
    ///   task was cancelled.
    func wait(enqueue: () -> Void) async throws(FlowBusError) -> Value {
        do {
            return try await suspend(enqueue: enqueue)
        } catch let error as FlowBusError {
            throw error
        } catch {
            throw FlowBusError(
                .cancelled,
                "the task was cancelled while it waited for flowd; what it asked for was sent all the same"
            )
        }
    }

    private func suspend(enqueue: () -> Void) async throws -> Value {
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Value, any Error>) in
                let finished = state.withLock { state -> Bool in
                    guard case .waiting = state else { return true }
                    state = .suspended(continuation)
                    return false
                }
                if finished {
                    continuation.resume(throwing: CancellationError())
                }
                enqueue()
            }
        } onCancel: {
            resume(with: .failure(CancellationError()))
        }
    }

    /// Gives the answer; later calls do nothing.
    func resume(with result: Result<Value, any Error>) {
        let continuation = state.withLock { state -> UnsafeContinuation<Value, any Error>? in
            switch state {
            case .waiting:
                state = .done
                return nil
            case .suspended(let continuation):
                state = .done
                return continuation
            case .done:
                return nil
            }
        }
        continuation?.resume(with: result)
    }

    /// Whether nobody waits any more (answered, failed or cancelled).
    var isDone: Bool {
        state.withLock { if case .done = $0 { true } else { false } }
    }
}

/// Replies are the same when they are the same caller's (the client's state machine's actions compare so).
extension PendingReply: Equatable {
    static func == (lhs: PendingReply, rhs: PendingReply) -> Bool {
        lhs === rhs
    }
}
