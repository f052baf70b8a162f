import FlowBus
import FlowWire
import Foundation
import ZeroMQ

/// The transport's own limit: a relay with no flow logic and no decoding (a ROUTER in, a PUB out, one hop, an
/// acknowledgement back), and a stepper and presenter that send and receive FlowBus-sized messages through it.
enum RelayRoles {
    static let topic = Array("cmd/bench/main".utf8)

    /// `flowbench relay CONTROL EVENTS`: forwards every message, as is, to its subscribers, and acknowledges it.
    static func relay(_ arguments: [String]) throws {
        let context = try Context()
        let router = try Socket(.router, context: context)
        try router.setOption(.sendHighWaterMark, 100_000)
        try router.bind(arguments[0])
        let publisher = try Socket(.publisher, context: context)
        try publisher.setOption(.sendHighWaterMark, 100_000)
        try publisher.bind(arguments[1])
        RoleLines.say("ready")
        let acknowledgement: [UInt8] = Array("ack".utf8)
        while let message = try router.receive(within: .seconds(3600)) {
            let frames = message.frames
            guard let sender = frames.first else { continue }
            _ = try publisher.send(frames: [topic] + frames.dropFirst())
            _ = try router.send(frames: [sender, acknowledgement])
        }
    }

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
        // A subscription takes a moment to reach the relay: ready once nothing more can be missed.
        Thread.sleep(forTimeInterval: 0.3)
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
