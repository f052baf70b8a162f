import Foundation
import Glibc

/// A TCP relay on loopback between clients and a server, that a test can cut and restore: a real broken
/// network between real processes, while both ends keep running.
///
/// Clients connect to ``port``; each connection is relayed to the upstream port. ``cut()`` closes every relayed
/// connection and stops listening (new connection attempts are refused); ``restore()`` listens again on the same
/// port.
public final class TCPRelay: @unchecked Sendable {
    /// The port clients connect to.
    public let port: UInt16
    private let upstreamPort: UInt16
    private var wake: [Int32] = [0, 0]
    private let loop: RelayLoop

    private enum Command {
        case cut, restore, stop
    }

    /// A relay to `upstream` (such as `tcp://127.0.0.1:5860`), listening on a free loopback port.
    public init(upstream: String) throws {
        guard let portText = upstream.split(separator: ":").last, let upstreamPort = UInt16(portText) else {
            throw TestFailure("\(upstream) has no port")
        }
        self.upstreamPort = upstreamPort
        let listener = try Self.listen(port: 0)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        guard pipe(&wake) == 0 else { throw TestFailure("pipe failed") }
        let loop = RelayLoop(listener: listener, port: port, upstreamPort: upstreamPort, wake: wake[0])
        self.loop = loop
        Thread { loop.run() }.start()
    }

    deinit {
        send(.stop)
        close(wake[1])
    }

    /// The endpoint clients use: `tcp://127.0.0.1:<port>`.
    public var endpoint: String { "tcp://127.0.0.1:\(port)" }

    /// Breaks every relayed connection and refuses new ones until ``restore()``.
    public func cut() { send(.cut) }

    /// Accepts connections again.
    public func restore() { send(.restore) }

    private func send(_ command: Command) {
        loop.lock.withLock { loop.commands.append(command) }
        var byte: UInt8 = 1
        _ = write(wake[1], &byte, 1)
    }

    /// Calls `call` (bind, connect) with the address 127.0.0.1:`port`; returns what it returns.
    static func onLoopback(_ port: UInt16, _ call: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    static func listen(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard onLoopback(port, { bind(fd, $0, $1) }) == 0, Glibc.listen(fd, 64) == 0 else {
            close(fd)
            throw TestFailure("cannot listen on 127.0.0.1:\(port): errno \(errno)")
        }
        return fd
    }

    /// The relay's thread: one poll over the listener, the wake pipe and every relayed socket.
    private final class RelayLoop: @unchecked Sendable {
        var listener: Int32?
        let port: UInt16
        let upstreamPort: UInt16
        let wake: Int32
        /// Each relayed socket and the one it forwards to.
        var partners: [Int32: Int32] = [:]
        let lock = NSLock()
        var commands: [Command] = []

        init(listener: Int32, port: UInt16, upstreamPort: UInt16, wake: Int32) {
            self.listener = listener
            self.port = port
            self.upstreamPort = upstreamPort
            self.wake = wake
        }

        private func takeCommands() -> [Command] {
            lock.withLock {
                defer { commands = [] }
                return commands
            }
        }

        func run() {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                var items = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
                if let listener { items.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0)) }
                items += partners.keys.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                _ = poll(&items, nfds_t(items.count), 1000)
                for item in items where item.revents != 0 {
                    if item.fd == wake {
                        _ = read(wake, &buffer, buffer.count)
                        for command in takeCommands() {
                            switch command {
                            case .cut:
                                closeAll()
                            case .restore:
                                if listener == nil { listener = try? TCPRelay.listen(port: port) }
                            case .stop:
                                closeAll()
                                close(wake)
                                return
                            }
                        }
                    } else if item.fd == listener {
                        accept(from: item.fd)
                    } else if let partner = partners[item.fd] {
                        let count = read(item.fd, &buffer, buffer.count)
                        if count <= 0 || !writeAll(partner, buffer, count) {
                            drop(item.fd)
                        }
                    }
                }
            }
        }

        private func accept(from listener: Int32) {
            let client = Glibc.accept(listener, nil, nil)
            guard client >= 0 else { return }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard TCPRelay.onLoopback(upstreamPort, { connect(upstream, $0, $1) }) == 0 else {
                close(client)
                close(upstream)
                return
            }
            partners[client] = upstream
            partners[upstream] = client
        }

        private func writeAll(_ fd: Int32, _ buffer: [UInt8], _ count: Int) -> Bool {
            var written = 0
            while written < count {
                let result = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + written, count - written) }
                guard result > 0 else { return false }
                written += result
            }
            return true
        }

        private func drop(_ fd: Int32) {
            if let partner = partners.removeValue(forKey: fd) {
                partners[partner] = nil
                close(partner)
            }
            close(fd)
        }

        private func closeAll() {
            if let listener {
                close(listener)
                self.listener = nil
            }
            for fd in Array(partners.keys) where partners[fd] != nil {
                drop(fd)
            }
        }
    }
}
