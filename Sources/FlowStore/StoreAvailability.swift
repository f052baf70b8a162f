import Foundation
import Synchronization

/// Whether a store answers, shared by the threads that use it and the one that watches it: the journal writer and
/// the store itself say when a call failed for want of the store (a database that is down, starting or being
/// promoted; a full disk) and when one succeeded again; flowd's event loop reads the outage to refuse HELLOs,
/// report `/readyz` and stop once the store has not answered for ``retryWindow``.
///
/// Retrying ends at once after ``abandon()`` (a stop): a loop that waits for the store asks ``shouldRetry`` between
/// its attempts.
public final class StoreAvailability: Sendable {
    /// An outage: since when the store does not answer, and the last reason it gave.
    public struct Outage: Sendable, Equatable {
        /// When the first failed call of the outage failed.
        public let since: ContinuousClock.Instant
        /// The same moment on the wall clock (for logs and metrics).
        public let sinceWall: Date
        /// Why the last call failed, in the store's words.
        public var reason: String
        /// When that was told.
        var told: ContinuousClock.Instant
    }

    /// Who tells: the journal's writes and questions, or the lease's renewals (a connection of its own). A write
    /// that succeeds ends the outage (what matters is written again); a lease renewed ends only what the lease saw,
    /// not an outage that writes still see (a window that started again at each renewal would never end).
    public enum Caller: Sendable, Hashable {
        case journal
        case lease
    }

    private struct State {
        /// The outage each caller sees.
        var outages: [Caller: Outage] = [:]
        var abandoned = false
        /// How many outages began (a caller's first failure while none was under way).
        var begun = 0

        /// The outage under way: since the earliest caller's began, with the last reason told.
        var outage: Outage? {
            guard let first = outages.values.min(by: { $0.since < $1.since }) else { return nil }
            let last = outages.values.max { $0.told < $1.told } ?? first
            return Outage(since: first.since, sinceWall: first.sinceWall, reason: last.reason, told: last.told)
        }
    }

    /// How long calls are retried from the start of an outage before they fail for good.
    public let retryWindow: Duration
    private let state = Mutex(State())

    /// Availability with calls retried for `retryWindow` from the start of an outage.
    public init(retryWindow: Duration = .seconds(60)) {
        self.retryWindow = retryWindow
    }

    /// The outage under way, if the store does not answer now.
    public var outage: Outage? {
        state.withLock { $0.outage }
    }

    /// How many outages began since this availability was made (a brief one, over before anyone looked, counts).
    public var outagesBegun: Int {
        state.withLock { $0.begun }
    }

    /// A call of `caller` failed because the store cannot be reached or cannot take writes now; the outage starts
    /// here unless one is under way.
    public func failed(_ reason: String, by caller: Caller = .journal) {
        let now = ContinuousClock.now
        state.withLock { state in
            if state.outages[caller] == nil {
                if state.outages.isEmpty {
                    state.begun += 1
                }
                state.outages[caller] = Outage(since: now, sinceWall: Date(), reason: reason, told: now)
            } else {
                state.outages[caller]?.reason = reason
                state.outages[caller]?.told = now
            }
        }
    }

    /// A call of `caller` succeeded: the outage is over, unless it is the lease's and the journal still sees one.
    public func answered(by caller: Caller = .journal) {
        state.withLock { state in
            guard !state.outages.isEmpty else { return }
            switch caller {
            case .journal: state.outages.removeAll()
            case .lease: state.outages[.lease] = nil
            }
        }
    }

    /// When retries end: ``retryWindow`` after the outage began (now, when none is under way).
    public var retryDeadline: ContinuousClock.Instant {
        (outage?.since ?? .now) + retryWindow
    }

    /// Whether a call that failed for want of the store may be tried again: not abandoned, and within the window.
    public var shouldRetry: Bool {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard !state.abandoned else { return false }
            guard let outage = state.outage else { return true }
            return now - outage.since < retryWindow
        }
    }

    /// Ends every retry at once, for good (flowd stops).
    public func abandon() {
        state.withLock { $0.abandoned = true }
    }

    /// Whether ``abandon()`` was called.
    public var isAbandoned: Bool {
        state.withLock { $0.abandoned }
    }

    /// The error a call gives when it stops retrying: the last reason, how long the store was waited for.
    public func gaveUp(_ error: StoreError) -> StoreError {
        let stopping = "; no longer waited for: flowd is stopping"
        let (seconds, attoseconds) = retryWindow.components
        let length = seconds > 0 ? "\(seconds) s" : "\(attoseconds / 1_000_000_000_000_000) ms"
        let window = "; still unavailable after \(length) of retries"
        // Said once, however many layers give up on the same error.
        guard !error.message.hasSuffix(stopping), !error.message.hasSuffix(window) else { return error }
        return StoreError(.unavailable, error.message + (isAbandoned ? stopping : window), sqlState: error.sqlState)
    }
}
