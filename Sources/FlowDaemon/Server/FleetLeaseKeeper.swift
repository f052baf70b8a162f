import Dispatch
import FlowStore
import Foundation
import Logging
import Synchronization

/// Keeps an instance's lease in its fleet alive: renews it every third of its length, on a thread and a database
/// connection of its own, as long as the event loop turns (a loop that stopped turning lets the lease lapse, and the
/// fleet takes its sessions over). Another flowd registered under the same name fences this one off: it is stopped.
final class FleetLeaseKeeper: Sendable {
    private let stopped = StopFlag()
    private let lease: PostgresLease
    private let logger: Logger
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts renewing `lease`; `fenced` is called once if another flowd took the name over.
    init(
        lease: PostgresLease,
        health: DaemonHealth,
        logger: Logger,
        fenced: @escaping @Sendable (String) -> Void
    ) {
        self.lease = lease
        self.logger = logger
        let period = Duration.milliseconds(max(100, lease.leaseMilliseconds / 3))
        let loopLimit = max(Duration.milliseconds(lease.leaseMilliseconds * 2 / 3), health.stallLimit / 5)
        let thread = lease
        let stopped = self.stopped
        let wake = self.wake
        let finished = self.finished
        Thread.detachNewThread { [thread] in
            var failing = false
            while !stopped.isSet {
                if health.turned(within: loopLimit) {
                    do {
                        if try thread.renew() == .fenced {
                            fenced(
                                "another flowd registered as instance \(thread.name) of the fleet: this one is fenced off and stops"
                            )
                            break
                        }
                        if failing {
                            logger.notice("the fleet's database answers again: the lease is renewed")
                            failing = false
                        }
                    } catch {
                        if !failing {
                            logger.warning("cannot renew the lease in the fleet's database: \(error)")
                            failing = true
                        }
                    }
                }
                _ = wake.wait(timeout: .now() + .milliseconds(Int(period.milliseconds)))
            }
            finished.signal()
        }
    }

    /// Stops renewing, and waits for the thread to end (once: later calls return at once), a few seconds at most (a
    /// renewal may wait for a database that does not answer); with `releasing`, then gives the lease up, so that
    /// the others take the sessions over at once (a graceful stop, all written).
    func stop(releasing: Bool = false) {
        guard stopped.set() else { return }
        wake.signal()
        guard finished.wait(timeout: .now() + .seconds(3)) == .success else { return }
        guard releasing else { return }
        do {
            try lease.release()
            logger.info("gave up the lease: the fleet's other instances take over the sessions now")
        } catch {
            logger.warning("cannot give up the lease (the sessions move when it expires): \(error)")
        }
    }
}

/// A flag set once, read from another thread.
private final class StopFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }

    /// Sets the flag; returns whether this call set it.
    @discardableResult
    func set() -> Bool {
        value.withLock { flag in
            defer { flag = true }
            return !flag
        }
    }
}
