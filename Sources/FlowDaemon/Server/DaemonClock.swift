import Foundation

/// flowd's clock: milliseconds on a monotonic clock — never stepped by NTP or by hand, so heartbeats and
/// deadlines keep their length — that continues from where the store's clock stopped, so the deadlines of stored
/// sessions keep their meaning across a restart. Timestamps that leave flowd use the wall clock.
struct DaemonClock: Sendable {
    private let origin = ContinuousClock.now
    private let base: Int64

    /// A clock that reads `base` now.
    init(continuingFrom base: Int64) {
        self.base = base
    }

    /// flowd's time (milliseconds).
    var now: Int64 {
        let elapsed = ContinuousClock.now - origin
        return base + elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
    }

    /// The wall clock (milliseconds since 1970).
    static var wallNow: Int64 {
        Int64(Date().timeIntervalSince1970 * 1000)
    }
}
