import Synchronization

/// Whether flowd is alive and ready, as `/livez` and `/readyz` say: the event loop marks each tick (at least every
/// half heartbeat interval, busy or idle), says when it is ready (endpoints bound, sessions restored) and when it
/// stops.
public final class DaemonHealth: Sendable {
    /// What a health check answers.
    public enum Verdict: Sendable, Equatable {
        case healthy
        /// Not healthy, and why (in words for the operator).
        case unhealthy(String)
    }

    private struct State {
        var ready = false
        var stopping = false
        var lastTick: ContinuousClock.Instant?
        /// Why the store does not answer, and since when; `nil` while it answers.
        var storeOutage: (since: ContinuousClock.Instant, reason: String)?
    }

    private let state = Mutex(State())
    /// How long the loop may go without a tick before it counts as stuck.
    public let stallLimit: Duration

    /// Health for a loop that ticks every `tickPeriod`: stuck after ten periods, and never before
    /// `minimumStall`.
    /// - Parameters:
    ///   - tickPeriod: how often the loop ticks when nothing else wakes it.
    ///   - minimumStall: the shortest silence that counts as stuck.
    public init(tickPeriod: Duration, minimumStall: Duration = .seconds(5)) {
        stallLimit = max(minimumStall, tickPeriod * 10)
    }

    /// The loop ticked.
    public func ticked() {
        let now = ContinuousClock.now
        state.withLock { $0.lastTick = now }
    }

    /// The endpoints are bound and the sessions restored.
    public func becameReady() {
        let now = ContinuousClock.now
        state.withLock {
            $0.ready = true
            $0.lastTick = now
        }
    }

    /// flowd is stopping: not ready any more (a load balancer sends no new client).
    public func stopping() {
        state.withLock { $0.stopping = true }
    }

    /// The store stopped answering (`reason`, since `since`), or answers again (`nil`): flowd is not ready meanwhile
    /// (it refuses HELLOs), though alive.
    public func storeOutage(_ outage: (since: ContinuousClock.Instant, reason: String)?) {
        state.withLock { $0.storeOutage = outage }
    }

    /// Liveness: the loop ticked within ``stallLimit`` (or it has not started yet: restoring a large state is
    /// not a stall). A stuck loop is worth a restart.
    public var liveness: Verdict {
        let state = state.withLock { $0 }
        guard let last = state.lastTick else { return .healthy }
        let silent = ContinuousClock.now - last
        guard silent > stallLimit else { return .healthy }
        let tenths = silent.components.seconds * 10 + silent.components.attoseconds / 100_000_000_000_000_000
        return .unhealthy("the event loop has not turned for \(tenths / 10).\(tenths % 10) s")
    }

    /// Whether the loop turned within `duration` (or has not started yet).
    public func turned(within duration: Duration) -> Bool {
        guard let last = state.withLock({ $0.lastTick }) else { return true }
        return ContinuousClock.now - last <= duration
    }

    /// Readiness: ready for clients: the endpoints bound, the sessions restored, not stopping, the store answering,
    /// and alive.
    public var readiness: Verdict {
        let state = state.withLock { $0 }
        if state.stopping { return .unhealthy("flowd is stopping") }
        if !state.ready { return .unhealthy("flowd is starting: binding its endpoints and restoring its sessions") }
        if let outage = state.storeOutage {
            let seconds = (ContinuousClock.now - outage.since).components.seconds
            return .unhealthy("the store does not answer (for \(seconds) s): \(outage.reason)")
        }
        return liveness
    }
}
