import Synchronization

/// A clock that moves only when a test says so: deadlines, heartbeats and timeouts are tested without sleeping.
///
/// Its instants count from zero. ``sleep(until:tolerance:)`` suspends until ``advance(by:)`` (or
/// ``advance(to:)``) reaches the deadline, and throws `CancellationError` if the sleeping task is cancelled first.
public final class ManualClock: Clock, Sendable {
    /// A moment of a manual clock: the time advanced since it was made.
    public struct Instant: InstantProtocol, Sendable, Hashable, CustomStringConvertible {
        /// How far the clock had been advanced at this moment.
        public var offset: Duration

        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }

        public var description: String { "\(offset)" }
    }

    /// A call of `sleep`: about to suspend, suspended until its deadline, or cancelled before it could suspend.
    private enum Sleeper {
        case starting
        case sleeping(deadline: Instant, CheckedContinuation<Void, any Error>)
        case cancelled
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        /// The calls of `sleep` not finished yet, by the order they came in.
        var sleepers: [Int: Sleeper] = [:]
    }

    private let state = Mutex(State())

    /// A clock at zero.
    public init() {}

    public var now: Instant {
        state.withLock { $0.now }
    }

    public var minimumResolution: Duration { .zero }

    /// Moves the clock on by `duration` and wakes the sleepers whose deadline it reaches.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "a clock does not go back")
        let woken = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            var due: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
            for (id, sleeper) in state.sleepers {
                if case .sleeping(let deadline, let continuation) = sleeper, deadline <= state.now {
                    due.append((id, continuation))
                }
            }
            for (id, _) in due {
                state.sleepers[id] = nil
            }
            return due.sorted { $0.id < $1.id }
        }
        for (_, continuation) in woken {
            continuation.resume()
        }
    }

    /// Moves the clock on to `instant` (if it is later than now).
    public func advance(to instant: Instant) {
        advance(by: max(.zero, now.duration(to: instant)))
    }

    /// Suspends until the clock is advanced to `deadline`.
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.sleepers[state.nextID] = .starting
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if case .cancelled? = state.sleepers[id] {
                        state.sleepers[id] = nil
                        return .failure(CancellationError())
                    }
                    if deadline <= state.now {
                        state.sleepers[id] = nil
                        return .success(())
                    }
                    state.sleepers[id] = .sleeping(deadline: deadline, continuation)
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                switch state.sleepers[id] {
                case .starting?:
                    state.sleepers[id] = .cancelled
                    return nil
                case .sleeping(_, let continuation)?:
                    state.sleepers[id] = nil
                    return continuation
                case .cancelled?, nil:
                    return nil
                }
            }
            continuation?.resume(throwing: CancellationError())
        }
    }
}
