import FlowCore
import FlowWire

/// A presenter process's connection to flowd: it receives what to show, reports what is visible, and emits the
/// steps of its screens.
///
/// ```swift
/// let presenter = try await PresenterClient.connect(session: "kiosk-7")
/// for await update in presenter.updates {
///     draw(update)                                   // rebuild, or apply one navigation's commands
///     try presenter.reportVisibility(of: update.screens)
/// }
/// ```
///
/// The client keeps its screens in step with flowd by itself: it starts from a snapshot, applies navigations in
/// order, and when one is missed, the connection is lost, or flowd restarts, it asks for a snapshot again and
/// hands the application a ``PresenterUpdate/rebuild(_:)``.
public final class PresenterClient: Sendable {
    let connection: BusConnection

    /// What to show, in order: a rebuild first, then navigations (and a rebuild again after each resync). Read
    /// it from one task; it ends when the client is closed.
    public let updates: PresenterUpdates

    /// The connection id flowd knows this client by.
    public var id: String { connection.setup.id }
    /// The session the client works for.
    public var session: String { connection.setup.session ?? "" }
    /// The presenter's name (flows place screens on presenter `main` unless they name another).
    public var name: String { connection.setup.name }

    /// The screens as flowd last described them (possibly ahead of the updates read so far).
    public var screens: ScreenTree {
        connection.screens.withLock { $0 }
    }

    private init(_ connection: BusConnection, updates: PresenterUpdates) {
        self.connection = connection
        self.updates = updates
    }

    deinit {
        connection.enqueue(.close(done: nil))
    }

    /// Connects to flowd as presenter `name` of `session` (creating the session if it does not exist yet); the
    /// first update, a rebuild, follows at once.
    /// - Throws: ``FlowBusError`` `unreachable`, `refused` (another process is this presenter), `invalidOptions`.
    public static func connect(
        session: String,
        name: String = "main",
        options: ClientOptions = ClientOptions()
    ) async throws(FlowBusError) -> PresenterClient {
        let setup = try ConnectionSetup(options: options, role: .presenter, name: name, session: session)
        let queue = UpdateQueue()
        let connection = try await BusConnection.open(setup, updates: queue)
        return PresenterClient(connection, updates: PresenterUpdates(queue: queue))
    }

    /// Reports screens as visible, hidden or dismissed.
    ///
    /// Report `dismissed` when the user removed a screen (a back gesture, a closed modal): it leaves ``screens``
    /// with what it held, and when you report visibility with ``reportVisibility(of:)``, the screens it uncovered
    /// are reported visible too.
    public func report(_ visibility: Visibility, _ presentables: [PresentableID]) throws(FlowBusError) {
        let taken =
            visibility == .dismissed
            ? connection.enqueue(.reportDismissed(presentables))
            : connection.enqueue(
                .send(
                    .visibility(VisibilityReport(visibility: visibility, presentables: presentables)),
                    session: session
                )
            )
        guard taken else {
            throw FlowBusError(.closed, "the client is closed")
        }
    }

    /// Reports what `screens` makes visible: newly visible screens as visible, and screens reported visible before
    /// that are now covered as hidden. Call it with an update's ``PresenterUpdate/screens`` once it is drawn.
    public func reportVisibility(of screens: ScreenTree) throws(FlowBusError) {
        guard connection.enqueue(.reportVisible(screens)) else {
            throw FlowBusError(.closed, "the client is closed")
        }
    }

    /// Emits a step as one of this presenter's screens (the screen's own stepper) and waits for its fate.
    /// - Throws: ``FlowBusError`` `refused` (`foreignPresentable` when the screen is not this presenter's),
    ///   `queueFull`, `closed`, `cancelled`.
    public func emit(_ step: Step, from presentable: PresentableID) async throws(FlowBusError) -> Fate {
        try await connection.emit(.step(step, presentable: presentable))
    }

    /// Emits a step given as a Swift value as one of this presenter's screens and waits for its fate.
    public func emit(_ step: some StepRepresentable, from presentable: PresentableID) async throws(FlowBusError) -> Fate
    {
        try await emit(step.step, from: presentable)
    }

    /// Emits a step as one of this presenter's screens without waiting for its fate.
    public func post(_ step: Step, from presentable: PresentableID) throws(FlowBusError) {
        try connection.post(.step(step, presentable: presentable))
    }

    /// Asks for a snapshot now (the application lost track of its screens); a rebuild follows.
    public func resync() throws(FlowBusError) {
        guard connection.enqueue(.resync) else {
            throw FlowBusError(.closed, "the client is closed")
        }
    }

    /// Says goodbye to flowd (its screens become hidden) and stops; ``updates`` ends.
    public func close() async {
        await connection.close()
    }
}
