import FlowBusTesting
import FlowCore
import FlowDaemonCore
import FlowSpec
import FlowWire
import Foundation
import Testing

/// Drives a coordinator as peers would, with real encoded frames.
struct Bus {
    var coordinator: Coordinator
    let codec = WireCodec()
    var now: Int64 = 1_000_000
    var sent: [Outgoing] = []
    var messageID: UInt64 = 0

    let specification: FlowSpecification
    let configuration: DaemonConfiguration

    /// A coordinator on `flows` (the demo's by default); `durable` keeps a journal (what goes to the store is taken
    /// with `coordinator.takeStoreGroup()`).
    init(
        flows: String? = nil,
        peerMessageRate: Int = 50_000,
        inspectionBatchDelay: Duration = .zero,
        durable: Bool = false,
        configure: (inout DaemonConfiguration) -> Void = { _ in }
    ) throws {
        let spec = try flows.map { try FlowSpecification.parse($0) } ?? FlowSpecification.load(contentsOf: demoFlows)
        var configuration = DaemonConfiguration(
            controlEndpoints: ["inproc://c"],
            eventsEndpoints: ["inproc://e"],
            flowsFile: demoFlows
        )
        configuration.engine.guardTimeout = .seconds(2)
        configuration.peerMessageRate = peerMessageRate
        configuration.inspectionBatchDelay = inspectionBatchDelay
        configuration.stateDirectory = durable ? "unused: the test writes the store" : nil
        configure(&configuration)
        self.specification = spec
        self.configuration = configuration
        coordinator = Coordinator(specification: spec, configuration: configuration, epoch: "test", now: now)
    }

    /// Sends as `peer`; with CURVE, its connection's key is that of the id `key` (its own by default).
    @discardableResult
    mutating func send(
        _ message: Message,
        from peer: String,
        session: String? = "kiosk",
        key: String? = nil
    ) -> [Envelope] {
        messageID += 1
        let header = Header(id: messageID, session: session, sender: peer, sentAt: now)
        let userID = configuration.curve == nil ? nil : (key ?? peer)
        let out = coordinator.receive(
            codec.encode(Envelope(header: header, message: message)),
            from: peer,
            userID: userID,
            now: now
        ).messages
        sent += out
        return replies(out, to: peer)
    }

    mutating func sendRaw(_ frames: [[UInt8]], from peer: String) -> [Envelope] {
        let out = coordinator.receive(frames, from: peer, now: now).messages
        sent += out
        return replies(out, to: peer)
    }

    func replies(_ out: [Outgoing], to peer: String) -> [Envelope] {
        out.compactMap { outgoing in
            guard case .toPeer(let target, let frames) = outgoing, target == peer else { return nil }
            return try? codec.decode(frames)
        }
    }

    /// The COMMANDS published so far for a presenter.
    func commands(for presenter: String, session: String = "kiosk") -> [CommandsMessage] {
        sent.compactMap { outgoing in
            guard case .publish(let topic, let frames) = outgoing, topic == "cmd/\(session)/\(presenter)",
                case .commands(let batch) = try? codec.decode(frames).message
            else { return nil }
            return batch
        }
    }

    /// Publishes the batched inspection events that are due, as the server does at the end of each turn.
    mutating func publishDue() {
        sent += coordinator.publishDueInspection(now: now)
    }

    /// The EVENT messages published so far, one per event.
    func events() -> [InspectionEvent] {
        sent.compactMap { outgoing in
            guard case .publish(let topic, let frames) = outgoing, topic.hasPrefix("ins/"),
                case .event(let event) = try? codec.decode(frames).message
            else { return nil }
            return event
        }
    }

    /// The EVENTS messages published so far, with their topics.
    func batches() -> [(topic: String, batch: InspectionBatch)] {
        sent.compactMap { outgoing in
            guard case .publish(let topic, let frames) = outgoing,
                case .events(let batch) = try? codec.decode(frames).message
            else { return nil }
            return (topic, batch)
        }
    }

    mutating func hello(_ role: Role, _ id: String, name: String? = nil, session: String? = "kiosk") -> [Envelope] {
        send(.hello(Hello(role: role, id: id, name: name, session: session)), from: id, session: session)
    }
}

func fate(_ envelopes: [Envelope]) -> WireFate? {
    envelopes.compactMap { if case .stepAck(let ack) = $0.message { ack.fate } else { nil } }.first
}

func error(_ envelopes: [Envelope]) -> ErrorReply? {
    envelopes.compactMap { if case .error(let error) = $0.message { error } else { nil } }.first
}

/// A flow whose `about` step is adapted by the guard `permissions` (subject `about`): allowed, it shows About;
/// refused (or unanswered by the deadline), it becomes `refused` and shows Refused.
let guardedAboutFlows = """
    version: 1
    session: { root: App, stepper: { named: app } }
    steps:
      about: {}
      refused: {}
    flows:
      App:
        root: { stack: app }
        adapt:
          about:
            guard: { name: permissions, subject: about }
            else: refused
        on:
          about:
            - show: About
          refused:
            - show: Refused
    """
