import FlowStore
import Foundation
import Logging

/// What the event loop makes of its store's availability, at every turn (one lock): while the store does not answer, the
/// coordinator refuses HELLOs (`storeUnavailable`), `/readyz` says why, the metrics say since when, and the log says
/// so once, then at most every ``reminderInterval``; once the store has not answered for its retry window, flowd
/// stops (exit 74) whether or not a write is pending.
struct StoreWatch {
    let availability: StoreAvailability
    let health: DaemonHealth
    let metrics: DaemonMetrics?
    let logger: Logger
    /// The outage seen at the last look.
    private var seen: StoreAvailability.Outage?
    /// When the outage was last logged.
    private var logged: ContinuousClock.Instant?
    /// When the last outage ended, or the loop started.
    private var recovered: ContinuousClock.Instant? = .now

    /// How often an outage that goes on is logged again.
    static let reminderInterval: Duration = .seconds(10)

    init(availability: StoreAvailability, health: DaemonHealth, metrics: DaemonMetrics?, logger: Logger) {
        self.availability = availability
        self.health = health
        self.metrics = metrics
        self.logger = logger
    }

    /// Whether the store does not answer now.
    var isDown: Bool { seen != nil }

    /// Whether the store has answered for `duration` at least (since the loop started, or since the last outage). An
    /// instance of a fleet takes no dead instance's sessions over before its store answered for a lease: the
    /// others' leases lapsed during the outage too, and they renew them within a third of one.
    func hasAnswered(for duration: Duration, now: ContinuousClock.Instant = .now) -> Bool {
        !isDown && (recovered.map { now - $0 >= duration } ?? true)
    }

    /// Looks at the store's availability; returns why it does not answer (`nil` while it does).
    /// - Throws: ``StoreError`` `.unavailable` once it has not answered for the retry window: flowd stops.
    mutating func look(now: ContinuousClock.Instant = .now) throws(StoreError) -> String? {
        let outage = availability.outage
        defer { seen = outage }
        guard let outage else {
            if let seen {
                let seconds = Double((now - seen.since).milliseconds) / 1000
                logger.notice(
                    "the store answers again after \(String(format: "%.1f", seconds)) s: HELLOs are taken, and what waited is acknowledged as it is written"
                )
                health.storeOutage(nil)
                metrics?.storeOutage(since: nil)
                logged = nil
                recovered = now
            }
            return nil
        }
        let down = now - outage.since
        if down >= availability.retryWindow {
            let message =
                "the store has not answered for \(availability.retryWindow.components.seconds) s (\(outage.reason)): flowd stops; nothing that was not written was acknowledged"
            logger.critical("\(message)")
            availability.abandon()
            throw StoreError(.unavailable, message)
        }
        if seen?.since != outage.since {
            metrics?.storeOutage(since: outage.sinceWall)
        }
        // `/readyz` says the last reason the store gave (a restarting database refuses, then answers slowly...).
        if seen?.since != outage.since || seen?.reason != outage.reason {
            health.storeOutage((outage.since, outage.reason))
        }
        if logged.map({ now - $0 >= Self.reminderInterval }) ?? true {
            logged = now
            let left = (availability.retryWindow - down).components.seconds
            logger.warning(
                seen == nil
                    ? "the store does not answer (\(outage.reason)): HELLOs are refused with storeUnavailable, steps wait unacknowledged; flowd stops if it does not answer within \(left) s"
                    : "the store still does not answer after \(down.components.seconds) s (\(outage.reason)); flowd stops in \(left) s"
            )
        }
        return outage.reason
    }
}
