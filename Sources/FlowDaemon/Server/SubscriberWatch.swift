import Foundation
import Logging
import Synchronization
import ZeroMQ

/// A thread of its own that follows the events socket's connections (from its monitor) and cuts the subscribers
/// that send more than a subscriber does, even while flowd's loop is inside libzmq.
///
/// libzmq takes a subscriber's subscriptions into its tree of topics on the loop's thread, whenever the loop uses
/// the events socket, and as long as the subscribers' connections bring more: fifty connections flooding over tcp
/// kept one read of the loop inside libzmq for up to a second, and took flowd to 500 MiB, because the loop could
/// not look at the connections until it came back. From here, a connection is cut within milliseconds of sending
/// more than ``SubscriberConnections/byteLimit`` (tcp) or having more than ``SubscriberConnections/waitingLimit``
/// waiting (ipc), whatever the loop is doing.
///
/// Every connection is looked at every ``busyInterval`` while subscriptions come in or connections are accepted
/// (and for a second after), every ``quietInterval`` otherwise: each look is a system call per connection.
final class SubscriberWatch: Sendable {
    /// What the thread did, for the loop to count and log.
    enum Report: Sendable, Equatable {
        /// Connections at `address` cut for what they sent or have waiting.
        case heavy(address: String, count: Int)
        /// Connections at `address` cut at the loop's request, for the unproven topics they held.
        case unproven(address: String, count: Int, local: Bool)
    }

    /// How often connections are looked at while subscriptions come in (ms).
    static let busyInterval: Int64 = 2
    /// How often otherwise (ms).
    static let quietInterval: Int64 = 100
    /// How long after the last subscription or accepted connection the watch stays busy (ms).
    static let busyFor: Int64 = 1000

    private struct Shared {
        var cutRequests: [String] = []
        var cutEveryone = false
        var reports: [Report] = []
        var busyUntil: Int64 = 0
    }

    private let shared = Mutex(Shared())
    private let clock: DaemonClock
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the thread, which reads the monitor at `endpoint` (``Socket/startMonitor()``) until the events socket
    /// closes. Returns once the thread's receiver is connected: the events socket may then take connections.
    init(monitoring endpoint: String, context: Context, gate: ConnectionGate, clock: DaemonClock, logger: Logger) throws
    {
        self.clock = clock
        let started = DispatchSemaphore(value: 0)
        let startError = Mutex<(any Error)?>(nil)
        let thread = Thread { [self] in
            let monitor: SocketMonitor
            do {
                monitor = try SocketMonitor(connectingTo: endpoint, context: context)
            } catch {
                startError.withLock { $0 = error }
                started.signal()
                finished.signal()
                return
            }
            started.signal()
            run(monitor, gate: gate, logger: logger)
            finished.signal()
        }
        thread.name = "flowd subscriber watch"
        thread.start()
        started.wait()
        if let error = startError.withLock({ $0 }) {
            throw error
        }
    }

    /// Subscriptions came in: connections are looked at often for a while.
    func subscriptionsArrived() {
        let until = clock.now + Self.busyFor
        shared.withLock { $0.busyUntil = max($0.busyUntil, until) }
    }

    /// Asks the thread to cut the connections at `address` (see ``SubscriberConnections/cut(address:now:)``).
    func cut(address: String) {
        shared.withLock { $0.cutRequests.append(address) }
    }

    /// Asks the thread to cut every subscriber connection (after authorized keys were withdrawn): each client
    /// connects again through the handshake, which lets in only the keys authorized now, and resubscribes.
    func cutEveryone() {
        shared.withLock {
            $0.cutEveryone = true
            $0.busyUntil = 0
        }
    }

    /// What the thread did since the last call.
    func takeReports() -> [Report] {
        shared.withLock { shared in
            defer { shared.reports = [] }
            return shared.reports
        }
    }

    /// Waits until the thread has ended (once the events socket is closed).
    func waitUntilFinished() {
        finished.wait()
    }

    private func run(_ monitor: SocketMonitor, gate: ConnectionGate, logger: Logger) {
        var connections = SubscriberConnections(gate: gate)
        var lastLook: Int64 = .min / 2
        while true {
            do {
                let now = clock.now
                let busy = shared.withLock { $0.busyUntil } > now
                let interval = busy ? Self.busyInterval : Self.quietInterval
                let wait = max(0, lastLook + interval - now)
                // Events as they come; the look at the connections when its time has come, events or not.
                if let event = try monitor.next(within: .milliseconds(wait)) {
                    if event.kind == .monitorStopped {
                        return
                    }
                    gate.count(event)
                    connections.note(event, now: clock.now)
                    if event.kind == .accepted {
                        shared.withLock { $0.busyUntil = max($0.busyUntil, clock.now + Self.busyFor) }
                    }
                }
                if clock.now >= lastLook + interval {
                    lastLook = clock.now
                    look(at: &connections, now: lastLook)
                }
            } catch {
                // The receiver must stay until the monitor stops (libzmq waits for it to report); carry on.
                logger.error("the subscriber watch cannot read the events socket's monitor: \(error)")
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
    }

    private func look(at connections: inout SubscriberConnections, now: Int64) {
        let (requests, everyone) = shared.withLock { shared in
            defer {
                shared.cutRequests = []
                shared.cutEveryone = false
            }
            return (shared.cutRequests, shared.cutEveryone)
        }
        if everyone {
            connections.cutEveryone()
        }
        var reports: [Report] = []
        for address in requests {
            let cut = connections.cut(address: address, now: now)
            reports.append(.unproven(address: address, count: cut.count, local: cut.local))
        }
        for (address, count) in connections.cutHeavySenders(now: now).sorted(by: { $0.key < $1.key }) {
            reports.append(.heavy(address: address, count: count))
        }
        if !reports.isEmpty {
            shared.withLock { $0.reports += reports }
        }
    }
}
