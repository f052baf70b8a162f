import Synchronization
import ZeroMQ

/// Keeps flowd's connections below what its open files allow, so that a storm of connections never takes the
/// descriptors flowd itself needs, and leaves room for the peers that come once it is over.
///
/// The event loop counts the connections its sockets accept and lose (from their monitors); every handshake goes
/// through flowd's ZAP handler (for NULL as for CURVE), which refuses a new connection while the count is at the
/// cap: the client's handshake fails with "too many connections", and libzmq closes it at once, freeing its
/// descriptor. Unbinding instead would close every connection the endpoint had accepted. The count lags the I/O
/// thread by the handshakes in flight (storms of 3000 went 2 and 36 over a cap of 896): the files kept for flowd absorb it.
/// (Counting at the handler instead cannot be given back exactly: the monitors name a closed connection by its
/// descriptor, a handshake by its status only.)
final class ConnectionGate: Sendable {
    /// The most connections taken.
    let cap: Int
    private let open = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)
    private let refusedBanned = Atomic<Int>(0)
    /// Peers (ZeroMQ's peer address: `localhost:uid:gid:pid` over ipc) refused in the handshake until when.
    private let bans = Mutex<[String: ContinuousClock.Instant]>([:])
    /// Keys (by the id they are authorized for) refused in the handshake until when, and how long their last ban
    /// was: a key that spoke under another's id.
    private let keyBans = Mutex<[String: (until: ContinuousClock.Instant, length: Duration)]>([:])

    /// Each key's handshakes in the current window: when the window began, and how many.
    private let keyHandshakes = Mutex<[String: (since: ContinuousClock.Instant, count: Int)]>([:])
    /// How many handshakes a key may make in ``handshakeWindow``: a client makes one per socket when it starts, and
    /// one each time it reconnects. Beyond, the key is refused until the window ends: a key that connects again at
    /// once, without a word, under another's id would otherwise hold that id nearly all the time.
    static let handshakesPerWindow = 30
    /// The window of ``handshakesPerWindow``.
    static let handshakeWindow = Duration.seconds(10)

    /// How long a key that spoke under another's id is refused, the first time; each ban within twice its length
    /// of the last doubles, up to ten minutes.
    static let impostorBan = Duration.seconds(10)

    /// A gate taking at most `cap` connections.
    init(cap: Int) {
        self.cap = cap
    }

    /// Connections open now, as the monitors last said.
    var connections: Int { open.load(ordering: .relaxed) }

    /// Counts the monitors' events: accepted and lost connections. `seen` is given each event with the index of
    /// its monitor.
    func count(_ monitors: [SocketMonitor], seen: (Int, MonitorEvent) -> Void = { _, _ in }) throws {
        for (index, monitor) in monitors.enumerated() {
            while let event = try monitor.next() {
                count(event)
                seen(index, event)
            }
        }
    }

    /// Counts one monitor event: an accepted or a lost connection (from any thread).
    func count(_ event: MonitorEvent) {
        switch event.kind {
        case .accepted: open.add(1, ordering: .relaxed)
        case .disconnected: open.subtract(1, ordering: .relaxed)
        default: break
        }
    }

    /// Refuses the peer at `address` in the handshake for `duration` (an ipc process cut for flooding: refused
    /// before its connection costs anything, where a connection accepted and cut at once still costs libzmq).
    func ban(_ address: String, for duration: Duration) {
        bans.withLock { $0[address] = ContinuousClock.now + duration }
    }

    /// Refuses the key authorized for `id` in the handshake for a while (``impostorBan``, doubling): a connection of
    /// it spoke under another's routing id. Returns how long.
    @discardableResult
    func banKey(of id: String) -> Duration {
        keyBans.withLock { bans in
            let now = ContinuousClock.now
            bans = bans.filter { $0.value.until + $0.value.length > now }
            let length = bans[id].map { min($0.length * 2, .seconds(600)) } ?? Self.impostorBan
            bans[id] = (now + length, length)
            return length
        }
    }

    /// Counts a handshake of the key authorized for `id`; returns whether it is one too many (see
    /// ``handshakesPerWindow``), and whether it is the first refused in this window. Called on the ZAP thread.
    func countHandshake(of id: String) -> (allowed: Bool, firstRefused: Bool) {
        keyHandshakes.withLock { handshakes in
            let now = ContinuousClock.now
            if handshakes.count > 4096 {
                handshakes = handshakes.filter { now - $0.value.since < Self.handshakeWindow }
            }
            var entry = (since: now, count: 0)
            if let current = handshakes[id], now - current.since < Self.handshakeWindow {
                entry = current
            }
            entry.count += 1
            handshakes[id] = entry
            return (entry.count <= Self.handshakesPerWindow, entry.count == Self.handshakesPerWindow + 1)
        }
    }

    /// Whether the key authorized for `id` is refused now (see ``banKey(of:)``). Called on the ZAP thread.
    func keyBanned(_ id: String) -> Bool {
        keyBans.withLock { bans in
            guard let ban = bans[id] else { return false }
            return ban.until > ContinuousClock.now
        }
    }

    /// The ZAP handler's decision about a new connection from `address`: refused at the cap, or while the address
    /// is banned. Called on the ZAP thread.
    func admits(_ address: String) -> Bool {
        let banned = bans.withLock { bans in
            guard !bans.isEmpty else { return false }
            let now = ContinuousClock.now
            bans = bans.filter { $0.value > now }
            return bans[address] != nil
        }
        if banned {
            refusedBanned.add(1, ordering: .relaxed)
            return false
        }
        guard open.load(ordering: .relaxed) >= cap else { return true }
        refused.add(1, ordering: .relaxed)
        return false
    }

    /// Connections refused at the cap since the last call.
    func takeRefused() -> Int {
        refused.exchange(0, ordering: .relaxed)
    }

    /// Counts a connection of a banned key refused in the handshake.
    func countRefusedBanned() {
        refusedBanned.add(1, ordering: .relaxed)
    }

    /// Connections of banned peers refused since the last call.
    func takeRefusedBanned() -> Int {
        refusedBanned.exchange(0, ordering: .relaxed)
    }
}
