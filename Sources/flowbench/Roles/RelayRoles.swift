import FlowBus
import FlowWire
import Foundation
import ZeroMQ

/// The transport's own limit: a relay with no flow logic and no decoding (a ROUTER in, a PUB out, one hop, an
/// acknowledgement back), and a stepper and presenter that send and receive FlowBus-sized messages through it.
enum RelayRoles {
    static let topic = Array("cmd/bench/main".utf8)

    /// `flowbench relay CONTROL EVENTS`: forwards every message, as is, to its subscribers, and acknowledges it.
    /// Like flowd, it confirms each subscription with a message on that topic (an XPUB sees subscriptions), so a
    /// subscriber knows when nothing more will be missed.
    static func relay(_ arguments: [String]) throws {
        let context = try Context()
        let router = try Socket(.router, context: context)
        try router.setOption(.sendHighWaterMark, 100_000)
        try router.bind(arguments[0])
        let publisher = try Socket(.extendedPublisher, context: context)
        try publisher.setOption(.sendHighWaterMark, 100_000)
        try publisher.bind(arguments[1])
        RoleLines.say("ready")
        var poller = Poller()
        let routerIndex = poller.register(router)
        let publisherIndex = poller.register(publisher)
        let acknowledgement: [UInt8] = Array("ack".utf8)
        while true {
            for (index, _) in try poller.poll(timeout: nil) {
                if index == publisherIndex {
                    while let subscription = try publisher.receive(dontWait: true),
                        let frame = subscription.frames.first,
                        frame.first == 1
                    {
                        _ = try publisher.send(frames: [Array(frame.dropFirst()), confirmation])
                    }
                } else if index == routerIndex {
                    while let message = try router.receive(dontWait: true), let sender = message.frames.first {
                        _ = try publisher.send(frames: [topic] + message.frames.dropFirst())
                        _ = try router.send(frames: [sender, acknowledgement])
                    }
                }
            }
        }
    }

    /// What the relay publishes on a topic when someone subscribes to it.
    static let confirmation = Array("subscribed".utf8)

    /// `flowbench relay-stepper CONTROL NAME STEPS flood|serial`: sends STEP messages as a FlowBus stepper would
    /// (the same four frames), 256 in flight at most (flood) or one at a time (serial).
    static func stepper(_ arguments: [String]) throws {
        let context = try Context()
        let dealer = try Socket(.dealer, context: context)
        try dealer.setOption(.routingID, Array(arguments[1].utf8))
        try dealer.connect(arguments[0])
        let count = Int(arguments[2]) ?? 0
        let window = arguments[3] == "serial" ? 1 : 256
        let codec = WireCodec()
        RoleLines.say("ready")
        RoleLines.awaitGo()
        var sent = 0
        var acknowledged = 0
        while acknowledged < count {
            while sent < count && sent - acknowledged < window {
                sent += 1
                let header = Header(id: UInt64(sent), session: BusRoles.session, sender: arguments[1], sentAt: 0)
                let message = StepMessage(step: BusRoles.step(sent), sequence: UInt64(sent), presentable: nil)
                _ = try dealer.send(frames: codec.encode(Envelope(header: header, message: .step(message))))
            }
            if try dealer.receive(within: .seconds(30)) == nil {
                throw BenchFailure("the relay stopped answering")
            }
            acknowledged += 1
        }
        RoleLines.say("done accepted=\(acknowledged)")
    }

    /// `flowbench relay-presenter EVENTS STEPS`: receives STEPS messages and measures each one's latency from the
    /// stamp in its step (decoding it, as a presenter decodes its commands).
    static func presenter(_ arguments: [String]) throws {
        let context = try Context()
        let subscriber = try Socket(.subscriber, context: context)
        try subscriber.setOption(.receiveHighWaterMark, 100_000)
        try subscriber.subscribe("cmd/")
        try subscriber.connect(arguments[0])
        let expected = Int(arguments[1]) ?? 0
        let codec = WireCodec()
        // Ready once the relay confirmed the subscription: nothing published from then on is missed.
        var confirmed = false
        while !confirmed, let message = try subscriber.receive(within: .seconds(30)) {
            confirmed = message.frames.count == 2 && message.frames[1] == confirmation
        }
        guard confirmed else { throw BenchFailure("the relay never confirmed the subscription") }
        RoleLines.say("ready")
        var latencies: [Int] = []
        latencies.reserveCapacity(expected)
        while latencies.count < expected, let message = try subscriber.receive(within: .seconds(30)) {
            let now = BenchClock.now()
            guard let envelope = try? codec.decode(Array(message.frames.dropFirst())),
                case .step(let step) = envelope.message, let stamp = step.step.parameters["t"]?.intValue
            else { continue }
            latencies.append(now - stamp)
        }
        RoleLines.say("done \(LatencySummary(samples: latencies).line)")
    }
}
