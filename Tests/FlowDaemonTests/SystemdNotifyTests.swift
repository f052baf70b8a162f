import FlowBusTesting
import Foundation
import Glibc
import Testing

/// flowd under systemd (Type=notify), with a real notification socket as systemd makes one: READY=1 once its
/// endpoints are bound, STATUS= lines, WATCHDOG=1 from its loop at half the watchdog's period, STOPPING=1 when it
/// stops; and nothing at all without NOTIFY_SOCKET (every other test runs so).
@Suite struct SystemdNotifyTests {
    /// A unix datagram socket bound at a fresh path, as systemd's notification socket.
    final class NotificationSocket {
        let path: String
        let descriptor: Int32

        init() throws {
            path = uniqueDirectory("notify") + ".sock"
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard descriptor >= 0, bound == 0 else { throw TestFailure("cannot bind \(path)") }
        }

        /// The next datagram, within `timeout`.
        func receive(within timeout: Duration) -> String? {
            var descriptor = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(
                timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
            )
            guard poll(&descriptor, 1, milliseconds) == 1 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(self.descriptor, &buffer, buffer.count, 0)
            return count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : nil
        }

        /// Datagrams until one contains `text`, within `timeout`; all of them.
        func receive(until text: String, within timeout: Duration = .seconds(10)) -> [String] {
            let deadline = ContinuousClock.now + timeout
            var received: [String] = []
            while ContinuousClock.now < deadline, let next = receive(within: ContinuousClock.now.duration(to: deadline))
            {
                received.append(next)
                if next.contains(text) { break }
            }
            return received
        }

        deinit {
            close(descriptor)
            unlink(path)
        }
    }

    @Test func flowdSaysReadyStatusWatchdogAndStoppingToSystemd() throws {
        let notifications = try NotificationSocket()
        let directory = uniqueDirectory("sd")
        let daemon = try DaemonProcess(
            [
                "--flows", demoFlows, "--control", "ipc://\(directory)/control", "--events",
                "ipc://\(directory)/events",
                "--ephemeral",
            ],
            environment: ["NOTIFY_SOCKET": notifications.path, "WATCHDOG_USEC": "400000"]
        )
        let ready = notifications.receive(until: "READY=1")
        #expect(ready.last?.contains("READY=1") == true, "\(ready)")
        #expect(ready.last?.contains("STATUS=ready: 0 sessions, 0 peers") == true, "\(ready)")
        // flowd's endpoints are bound when it says so.
        #expect(FileManager.default.fileExists(atPath: "\(directory)/control"))
        // The watchdog every 200 ms (half of 400 ms), from the loop: five within two seconds at least.
        var watchdogs = 0
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline, let next = notifications.receive(within: .milliseconds(500)) {
            if next == "WATCHDOG=1" {
                watchdogs += 1
            }
        }
        #expect(watchdogs >= 5, "\(watchdogs) watchdog notifications in 2 s")
        #expect(daemon.signal(SIGTERM) == 0)
        let stopping = notifications.receive(until: "STOPPING=1")
        #expect(stopping.contains("STOPPING=1"), "\(stopping)")
    }
}
