/// flowd's clocks, as the coordinator keeps them: its own (milliseconds, monotonic, continued across restarts from
/// the store; timers and deadlines run on it) and the wall clock's offset from it (timestamps that leave flowd are
/// on the wall clock). The server tells it the time; it never reads a clock.
struct CoordinatorTime: Sendable {
    /// flowd's clock (ms), as last heard: it never goes back.
    private(set) var now: Int64
    /// The wall clock minus flowd's clock. The server sets it every turn; it moves with NTP, and the timers do not.
    var wallOffset: Int64 = 0
    /// When this run started, on flowd's clock: idle sessions count their idleness from it at the earliest.
    var startedAt: Int64
    /// When ``Coordinator/tick(now:answersHeld:)`` last ran.
    var lastTick: Int64

    init(now: Int64) {
        self.now = now
        startedAt = now
        lastTick = now
    }

    /// Now on the wall clock (ms since 1970).
    var wallNow: Int64 { now + wallOffset }

    /// Time passed to `now` (an earlier time changes nothing).
    mutating func advance(to now: Int64) {
        self.now = max(self.now, now)
    }

    /// A journal entry is replayed: the clocks are as they were when it was applied.
    mutating func replay(at now: Int64, wall: Int64) {
        self.now = now
        wallOffset = wall - now
    }

    /// A restored run: its clock starts at `now` (the later of the stored clock and the last entry's time).
    mutating func restart(at now: Int64) {
        self.now = now
        startedAt = now
        lastTick = now
    }
}
