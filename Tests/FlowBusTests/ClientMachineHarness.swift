import FlowBusTesting
import FlowCore
import FlowWire
import Testing

@testable import FlowBus

/// A client's state machine driven by a manual clock, with what flowd would say: no socket, no sleep.
struct ClientMachineHarness {
    static let first = Endpoints(control: "tcp://127.0.0.1:7001", events: "tcp://127.0.0.1:7002")
    static let second = Endpoints(control: "tcp://127.0.0.1:7101", events: "tcp://127.0.0.1:7102")

    let clock = ManualClock()
    let codec = WireCodec()
    var machine: ClientStateMachine<ManualClock>
    /// The id of flowd's next message.
    private var daemonMessageID: UInt64 = 0

    /// A client of `role` named `app` in session `s1`, whose options list `alternates` after ``first``.
    init(role: Role = .stepper, alternates: [Endpoints] = []) throws {
        let options = ClientOptions(
            endpoints: Self.first,
            alternateEndpoints: alternates,
            connectTimeout: .seconds(5),
            reconnectInterval: .milliseconds(100),
            reconnectIntervalMax: .seconds(5),
            environment: [:]
        )
        let setup = try ConnectionSetup(options: options, role: role, name: "app", session: "s1")
        machine = ClientStateMachine(setup: setup, now: clock.now)
    }

    var setup: ConnectionSetup { machine.setup }

    // MARK: Events

    mutating func connected() -> [ClientAction] {
        machine.control(.connected, now: clock.now)
    }

    mutating func disconnected() -> [ClientAction] {
        machine.control(.disconnected(endpoint: Self.first.control), now: clock.now)
    }

    /// flowd's message, answering the client's message `correlation`.
    mutating func receive(_ message: FlowWire.Message, correlation: UInt64? = nil) -> [ClientAction] {
        daemonMessageID += 1
        let header = Header(id: daemonMessageID, session: "s1", correlation: correlation, sentAt: 0)
        return machine.received(.success(Envelope(header: header, message: message)), now: clock.now)
    }

    /// A message published on the presenter's topic.
    mutating func publish(_ message: FlowWire.Message) -> [ClientAction] {
        daemonMessageID += 1
        let header = Header(id: daemonMessageID, session: "s1", sentAt: 0)
        return machine.published(Envelope(header: header, message: message), now: clock.now)
    }

    mutating func request(_ request: Request) -> [ClientAction] {
        machine.handle(request, now: clock.now)
    }

    /// Lets `duration` pass, then lets the machine look at its deadlines.
    mutating func advance(by duration: Duration) -> [ClientAction] {
        clock.advance(by: duration)
        return machine.tick(now: clock.now)
    }

    /// Connects and answers the HELLO with `welcome`; returns the actions of the WELCOME.
    mutating func register(_ welcome: Welcome = Self.welcome()) throws -> [ClientAction] {
        let hello = try #require(sent(connected()).first)
        #expect(hello.message.type == .hello)
        return receive(.welcome(welcome), correlation: hello.id)
    }

    static func welcome(lastSequence: UInt64? = nil, epoch: String? = "e1") -> Welcome {
        Welcome(
            daemonVersion: "test",
            id: "s1/app",
            session: "s1",
            sessionCreated: false,
            heartbeatInterval: 1000,
            heartbeatTimeout: 5000,
            maxMessageSize: 1 << 20,
            lastSequence: lastSequence,
            epoch: epoch
        )
    }

    // MARK: What the machine did

    /// The messages the actions send, decoded, with their header ids.
    func sent(_ actions: [ClientAction]) -> [(id: UInt64, message: FlowWire.Message)] {
        actions.compactMap { action in
            guard case .send(let outgoing) = action,
                let envelope = try? codec.decode(outgoing.frames(codec, sender: setup.id, sentAt: 0))
            else { return nil }
            return (outgoing.id, envelope.message)
        }
    }

    /// What the machine sends for `message` as the message `id` (the session being the client's).
    func sending(_ message: FlowWire.Message, id: UInt64, session: String? = "s1") -> ClientAction {
        .send(OutgoingMessage(id: id, session: session, type: message.type, body: codec.body(of: message)))
    }

    /// The STEP message of a step named `name` numbered `sequence`.
    static func step(_ name: String, _ sequence: UInt64) -> FlowWire.Message {
        .step(StepMessage(step: Step(name), sequence: sequence))
    }
}
