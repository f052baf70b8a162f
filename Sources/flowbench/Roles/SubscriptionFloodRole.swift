import Foundation
import Synchronization
import ZeroMQ

/// `flowbench subscription-flooder EVENTS [COUNT] [CONNECTIONS]`: XSUBs (CONNECTIONS of them, one by default) that
/// subscribe to COUNT (500 000 by default) topics in all that flowd never publishes, 64 random hex digits each, as
/// fast as their sockets take them, reconnecting (libzmq's XSUB sends them all again on each new connection) until
/// its standard input closes or says `stop`. What a peer can make flowd keep for subscriptions (libzmq keeps every
/// one of a connection, without a bound of its own).
enum SubscriptionFloodRole {
    static func run(_ arguments: [String]) throws {
        let context = try Context()
        let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 500_000
        let connections = max(1, arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1)
        var subscribers: [Socket] = []
        for _ in 0..<connections {
            let subscriber = try Socket(.extendedSubscriber, context: context)
            try subscriber.setOption(.sendHighWaterMark, 0)
            try subscriber.connect(arguments[0])
            subscribers.append(subscriber)
        }
        let stopping = SubscriptionFloodStop()
        Thread {
            while let line = readLine(), line != "stop" {}
            stopping.stop()
        }.start()
        RoleLines.say("ready")
        var generator = SystemRandomNumberGenerator()
        var sent = 0
        var next = 0
        var blocked = 0
        while sent < count && !stopping.isStopped {
            let subscriber = subscribers[next]
            next = (next + 1) % subscribers.count
            var frame: [UInt8] = [1]
            for _ in 0..<32 {
                let byte = UInt8.random(in: 0...255, using: &generator)
                frame += Array(String(byte, radix: 16).leftPadded(to: 2).utf8)
            }
            if try subscriber.send(frames: [frame], dontWait: true) {
                sent += 1
                blocked = 0
            } else {
                // Waits only once no connection takes more.
                blocked += 1
                if blocked >= subscribers.count {
                    blocked = 0
                    _ = try subscriber.wait(for: .writable, within: .milliseconds(10))
                }
            }
        }
        RoleLines.say("sent \(sent)")
        while !stopping.isStopped {
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}

/// A flag another thread sets.
private final class SubscriptionFloodStop: Sendable {
    private let flag = Mutex(false)
    var isStopped: Bool { flag.withLock { $0 } }
    func stop() { flag.withLock { $0 = true } }
}
