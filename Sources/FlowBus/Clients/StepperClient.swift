import FlowCore
import FlowWire

/// A stepper process's connection to flowd: it emits steps under its name and learns each step's fate.
///
/// ```swift
/// let auth = try await StepperClient.connect(session: "kiosk-7", name: "auth")
/// let fate = try await auth.emit(AppStep.userIsLoggedIn(name: "ada"))
/// if let drop = fate.drop { print("dropped:", drop.explanation, drop.remedy ?? "") }
/// ```
///
/// Steps are numbered; one that is not acknowledged when the connection breaks is sent again after the client
/// reconnects, and flowd applies it once. Every method may be called from any task.
public final class StepperClient: Sendable {
    let connection: BusConnection

    /// The connection id flowd knows this client by.
    public var id: String { connection.setup.id }
    /// The session the client works for.
    public var session: String { connection.setup.session ?? "" }
    /// The stepper's name, as flows name it (`stepper: {named: auth}`).
    public var name: String { connection.setup.name }

    /// How many steps emitted by this client wait for their fate now (at most
    /// ``ClientOptions/maxOutstandingSteps``): a gauge of how far flowd is behind, or away.
    public var waitingSteps: Int { connection.waitingSteps }

    private init(_ connection: BusConnection) {
        self.connection = connection
    }

    deinit {
        connection.enqueue(.close(done: nil))
    }

    /// Connects to flowd as the stepper `name` of `session` (creating the session if it does not exist yet).
    ///
    /// As in RxFlow, `initialStep` is emitted first, as soon as flowd has registered the stepper, and
    /// `readyToEmitSteps` is called after it.
    /// - Throws: ``FlowBusError`` `unreachable` when flowd does not answer within
    ///   ``ClientOptions/connectTimeout``; `refused` when it will not register the stepper (another process uses
    ///   the name in this session, a key not allowed for this id...); `invalidOptions`.
    public static func connect(
        session: String,
        name: String,
        options: ClientOptions = ClientOptions(),
        initialStep: Step? = nil,
        readyToEmitSteps: (@Sendable (StepperClient) async -> Void)? = nil
    ) async throws(FlowBusError) -> StepperClient {
        let setup = try ConnectionSetup(options: options, role: .stepper, name: name, session: session)
        let client = StepperClient(try await BusConnection.open(setup))
        if let initialStep {
            try client.post(initialStep)
        }
        await readyToEmitSteps?(client)
        return client
    }

    /// Emits a step and waits for its fate.
    ///
    /// Cancelling the waiting task stops the wait, not the step: it is still delivered (once).
    /// - Throws: ``FlowBusError`` `refused` when flowd rejects the message (`unknownStep`...), `queueFull` when
    ///   ``ClientOptions/maxOutstandingSteps`` steps already wait, `closed`, `cancelled`.
    public func emit(_ step: Step) async throws(FlowBusError) -> Fate {
        try await connection.emit(.step(step, presentable: nil))
    }

    /// Emits a step given as a Swift value (usually an `enum` case) and waits for its fate.
    public func emit(_ step: some StepRepresentable) async throws(FlowBusError) -> Fate {
        try await emit(step.step)
    }

    /// Emits the step `name` with `parameters` and waits for its fate.
    public func emit(_ name: String, _ parameters: JSONObject = [:]) async throws(FlowBusError) -> Fate {
        try await emit(Step(name, parameters))
    }

    /// Emits a step without waiting for its fate (it is still resent until flowd acknowledges it).
    /// - Throws: ``FlowBusError`` `queueFull` or `closed`.
    public func post(_ step: Step) throws(FlowBusError) {
        try connection.post(.step(step, presentable: nil))
    }

    /// Emits a step given as a Swift value without waiting for its fate.
    public func post(_ step: some StepRepresentable) throws(FlowBusError) {
        try post(step.step)
    }

    /// Sends a deep link — one step, or a path of steps opening nested flows in turn — to every flow of the
    /// session, and waits for its fate. A deep link that arrives before the flows can take it waits (bounded).
    public func deepLink(_ path: [Step]) async throws(FlowBusError) -> Fate {
        try await connection.emit(.deepLink(path))
    }

    /// Sets a value of the session's data (read by `adapt` rules such as `requires: {permission: about}`, which
    /// look in `permissions`); `nil` removes it. Returns once flowd has set it: steps emitted after that, by any
    /// process, see the new value.
    /// - Throws: ``FlowBusError`` `refused`, `timedOut` (no answer within `timeout`), `closed`.
    public func setSessionData(
        _ key: String,
        to value: JSONValue?,
        timeout: Duration = .seconds(5)
    ) async throws(FlowBusError) {
        try await connection.setSessionData(key, to: value, session: session, timeout: timeout)
    }

    /// Says goodbye to flowd and stops. Steps still waiting for their fate (a posted one included) get it first, for
    /// two seconds at most while registered; those still waiting then (or all, when flowd is away) fail with
    /// `closed`.
    public func close() async {
        await connection.close()
    }
}
