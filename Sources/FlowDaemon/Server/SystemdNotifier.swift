import Foundation
import Glibc

/// Tells systemd how flowd is doing, with sd_notify's protocol (a datagram of `KEY=value` lines to the unix socket
/// in `NOTIFY_SOCKET`): `READY=1` once the endpoints are bound and the sessions restored, `STATUS=` now and then
/// (sessions, peers), `WATCHDOG=1` from the event loop at half the watchdog's period (a loop that is stuck stops
/// sending it, and systemd restarts flowd), `STOPPING=1` when it stops. Nothing is sent when flowd does not run
/// under systemd (no `NOTIFY_SOCKET`); the watchdog only when systemd asks for it, for this process.
struct SystemdNotifier {
    /// Where to send, when flowd runs under systemd: a path, or `@name` in the abstract namespace.
    let socketPath: String?
    /// How often to send `WATCHDOG=1` (ms): half of `WATCHDOG_USEC`, when it is set for this process.
    let watchdogInterval: Int64?
    /// How often to send `STATUS=` (ms).
    static let statusInterval: Int64 = 5000

    private var lastWatchdog: Int64 = .min / 2
    private var lastStatus: Int64 = .min / 2

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        let forThisProcess = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        if socketPath != nil, forThisProcess, let microseconds = environment["WATCHDOG_USEC"].flatMap(Int64.init),
            microseconds > 0
        {
            watchdogInterval = max(1, microseconds / 2000)
        } else {
            watchdogInterval = nil
        }
    }

    /// Whether flowd runs under systemd.
    var isActive: Bool { socketPath != nil }

    /// When the loop must next wake up for the watchdog (ms), if it is on.
    var nextDue: Int64? { watchdogInterval.map { lastWatchdog + $0 } }

    /// Sends `state` (one or more `KEY=value` lines). Returns whether it was sent.
    @discardableResult
    func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let message = Array(state.utf8)
        // Never waits: the event loop sends these (a full queue at systemd loses one notification, not the loop).
        let sent = withUnixSocketAddress(socketPath) { address, length in
            message.withUnsafeBytes {
                sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), address, length)
            }
        }
        return sent == message.count
    }

    /// Called by the loop on every tick: the watchdog when due, the status every ``statusInterval``.
    mutating func tick(now: Int64, status: () -> String) {
        guard isActive else { return }
        if let watchdogInterval, now - lastWatchdog >= watchdogInterval {
            notify("WATCHDOG=1")
            lastWatchdog = now
        }
        if now - lastStatus >= Self.statusInterval {
            notify("STATUS=\(status())")
            lastStatus = now
        }
    }
}
