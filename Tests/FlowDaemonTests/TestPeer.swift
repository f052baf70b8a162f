import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// A peer of a real flowd over real sockets: a DEALER with its id as routing id, and a SUB for the events.
final class TestPeer {
    let id: String
    let session: String
    let dealer: Socket
    let subscriber: Socket
    let codec = WireCodec()
    private var lastID: UInt64 = 0

    init(
        _ id: String,
        session: String,
        context: Context,
        control: String,
        events: String,
        curve: (keys: CurveKeyPair, server: CurveKey)? = nil
    ) throws {
        self.id = id
        self.session = session
        dealer = try Socket(.dealer, context: context)
        try dealer.setOption(.routingID, Array(id.utf8))
        subscriber = try Socket(.subscriber, context: context)
        if let curve {
            try dealer.makeCurveClient(keyPair: curve.keys, serverKey: curve.server)
            try subscriber.makeCurveClient(keyPair: curve.keys, serverKey: curve.server)
        }
        try dealer.connect(control)
        try subscriber.connect(events)
    }

    /// Sends a message, its header naming `session` (this peer's by default); returns its header id.
    @discardableResult
    func send(_ message: FlowWire.Message, session: String? = nil) throws -> UInt64 {
        lastID += 1
        let header = Header(
            id: lastID,
            session: session ?? self.session,
            sender: id,
            sentAt: Int64(Date().timeIntervalSince1970 * 1000)
        )
        try dealer.send(frames: codec.encode(Envelope(header: header, message: message)))
        return lastID
    }

    /// The next message from the daemon that `matches`, skipping others (heartbeats...), within a deadline.
    func expect<T>(within timeout: Duration = .seconds(10), _ matches: (FlowWire.Message) -> T?) throws -> T {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let frames = try dealer.receive(within: ContinuousClock.now.duration(to: deadline)) else { break }
            if let envelope = try? codec.decode(frames.frames), let value = matches(envelope.message) {
                return value
            }
        }
        Issue.record("\(id): no expected message within \(timeout)")
        throw CancellationError()
    }

    /// Subscribes to a topic prefix on the events socket and waits for the HEARTBEAT flowd publishes on it when the
    /// subscription arrives: from then on nothing published there is missed (without the wait, what is published
    /// before the subscription reaches flowd is lost, as ZeroMQ's subscribers lose it).
    func subscribe(_ topic: String) throws {
        try subscriber.subscribe(topic)
        try expectPublished { if case .heartbeat = $0 { () } else { nil } }
    }

    /// The next published message that `matches`, within a deadline.
    func expectPublished<T>(within timeout: Duration = .seconds(10), _ matches: (FlowWire.Message) -> T?) throws -> T {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let message = try subscriber.receive(within: ContinuousClock.now.duration(to: deadline)) else {
                break
            }
            if let envelope = try? codec.decode(Array(message.frames.dropFirst())),
                let value = matches(envelope.message)
            {
                return value
            }
        }
        Issue.record("\(id): nothing expected was published within \(timeout)")
        throw CancellationError()
    }

    /// A peer of session `kiosk` named `name`, with its connection id `kiosk/<name>`, registered in `role`.
    static func registered(
        _ role: Role,
        name: String,
        context: Context,
        control: String,
        events: String
    ) throws -> TestPeer {
        let peer = try TestPeer("kiosk/\(name)", session: "kiosk", context: context, control: control, events: events)
        try peer.hello(role, name: name)
        return peer
    }

    /// HELLO, then its WELCOME (the HELLO may go out before the connection is up: DEALER queues it).
    @discardableResult
    func hello(_ role: Role, name: String) throws -> Welcome {
        try send(.hello(Hello(role: role, id: id, name: name, session: session)))
        return try expect { if case .welcome(let welcome) = $0 { welcome } else { nil } }
    }

    /// flowd's counters, from the `stats` query.
    func stats() throws -> JSONObject {
        try send(.query(Query(what: "stats")))
        return try expect { message in
            if case .reply(let reply) = message { reply.result.objectValue } else { nil }
        }
    }

    /// Emits a step and returns its acknowledged fate.
    func emit(_ step: Step, sequence: UInt64, presentable: PresentableID? = nil) throws -> WireFate {
        try send(.step(StepMessage(step: step, sequence: sequence, presentable: presentable)))
        return try expect { message in
            if case .stepAck(let ack) = message, ack.sequence == sequence { ack.fate } else { nil }
        }
    }
}
