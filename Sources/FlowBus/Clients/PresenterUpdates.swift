import FlowCore
import Synchronization

/// A presenter's updates, in order, as the connection's thread delivers them: read with `for await`, from one task.
/// The sequence ends when the client is closed; a task cancelled while it waits for the next update gets `nil`.
///
/// Every update is kept until it is read (none is dropped: a presenter that falls behind catches up in order). It is
/// a queue of its own rather than an `AsyncStream`: the stream's general code looked its element's type up at run
/// time and moved its whole backlog on each read, a quarter of a busy presenter's processor time.
public struct PresenterUpdates: AsyncSequence, Sendable {
    /// An update: a rebuild, or one navigation.
    public typealias Element = PresenterUpdate
    /// Reading never fails: the sequence ends.
    public typealias Failure = Never

    let queue: UpdateQueue

    /// Reads the updates one after another.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let queue: UpdateQueue

        /// The next update; `nil` once the client is closed (or the reading task is cancelled while it waits).
        public mutating func next() async -> PresenterUpdate? {
            await queue.next()
        }

        /// The next update, as ``next()`` (isolation does not matter: the queue has a lock of its own).
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(Never) -> PresenterUpdate? {
            await queue.next()
        }
    }

    /// An iterator over the updates (one reader at a time).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(queue: queue)
    }
}

/// The updates between the connection's thread, which adds them, and the one task that reads them.
final class UpdateQueue: Sendable {
    private struct State: ~Copyable {
        /// Updates not read yet: those before `head` were read (their places are reused once all are).
        var buffer: [PresenterUpdate] = []
        var head = 0
        var finished = false
        /// The reader, while it waits for an update.
        var waiting: UnsafeContinuation<PresenterUpdate?, Never>?

        /// The oldest update not read, if any.
        mutating func take() -> PresenterUpdate? {
            guard head < buffer.count else { return nil }
            let update = buffer[head]
            head += 1
            if head == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                head = 0
            }
            return update
        }
    }

    private let state = Mutex(State())

    /// Whether the reader waits for an update now (what the tests wait for before they add or cancel).
    var hasWaitingReader: Bool {
        state.withLock { $0.waiting != nil }
    }

    /// Adds an update (handed straight to the reader when it waits); nothing is added once finished.
    func add(_ update: PresenterUpdate) {
        let reader = state.withLock { state -> UnsafeContinuation<PresenterUpdate?, Never>? in
            guard !state.finished else { return nil }
            if let waiting = state.waiting {
                state.waiting = nil
                return waiting
            }
            state.buffer.append(update)
            return nil
        }
        reader?.resume(returning: update)
    }

    /// Ends the updates: the reader gets those left, then `nil`.
    func finish() {
        let reader = state.withLock { state -> UnsafeContinuation<PresenterUpdate?, Never>? in
            state.finished = true
            defer { state.waiting = nil }
            return state.waiting
        }
        reader?.resume(returning: nil)
    }

    /// The next update: at once when one is there, otherwise when it comes (`nil` once finished, or when the task is
    /// cancelled while it waits).
    func next() async -> PresenterUpdate? {
        let ready = state.withLock { state -> PresenterUpdate?? in
            if let update = state.take() { return .some(update) }
            return state.finished ? .some(nil) : nil
        }
        if let ready { return ready }
        // Cancelled before it waits, the reader does not wait (its task's flag is read under the lock); cancelled
        // while it waits, it is given `nil` (the flag is set before the handler runs, which takes the lock).
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                let ready = state.withLock { state -> PresenterUpdate?? in
                    if let update = state.take() { return .some(update) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    precondition(state.waiting == nil, "a presenter's updates are read from one task at a time")
                    state.waiting = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let reader = state.withLock { state -> UnsafeContinuation<PresenterUpdate?, Never>? in
                defer { state.waiting = nil }
                return state.waiting
            }
            reader?.resume(returning: nil)
        }
    }
}
