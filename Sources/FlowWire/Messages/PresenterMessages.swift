import FlowCore

/// VISIBILITY: a presenter reports what it shows.
public struct VisibilityReport: Sendable, Hashable, Codable {
    /// `visible`, `hidden` or `dismissed`.
    public var visibility: Visibility
    /// The presentables concerned, all shown by this presenter.
    public var presentables: [PresentableID]

    public init(visibility: Visibility, presentables: [PresentableID]) {
        self.visibility = visibility
        self.presentables = presentables
    }
}

/// COMMANDS (published): one navigation's commands for one presenter, to apply as a whole.
public struct CommandsMessage: Sendable, Hashable, Codable {
    /// The presenter they are for.
    public var presenter: String
    /// The batch's number in this presenter's stream: one more than the previous batch. A gap means batches
    /// were lost: ask for a snapshot.
    public var sequence: UInt64
    /// The daemon's run: it changes when the daemon restarts (ask for a snapshot when it does).
    public var epoch: String
    /// The commands, in order.
    public var commands: [NavigationCommand]
    /// The flow that navigated.
    public var flow: FlowID
    /// The step it navigated to (absent for commands that start a session or follow a report).
    public var step: Step?

    public init(
        presenter: String,
        sequence: UInt64,
        epoch: String,
        commands: [NavigationCommand],
        flow: FlowID,
        step: Step?
    ) {
        self.presenter = presenter
        self.sequence = sequence
        self.epoch = epoch
        self.commands = commands
        self.flow = flow
        self.step = step
    }
}

/// SNAPSHOT_REQUEST: a presenter asks for everything it must show.
public struct SnapshotRequest: Sendable, Hashable, Codable {
    /// The presenter asking (defaults to the sender's id).
    public var presenter: String?

    public init(presenter: String? = nil) {
        self.presenter = presenter
    }
}

/// SNAPSHOT: everything a presenter must show, as the commands that build it from an empty window, valid at a
/// sequence: apply it, then the batches with a higher sequence.
public struct SnapshotMessage: Sendable, Hashable, Codable {
    /// The presenter.
    public var presenter: String
    /// The sequence of the last batch it includes.
    public var sequence: UInt64
    /// The daemon's run.
    public var epoch: String
    /// The commands that rebuild the screen.
    public var commands: [NavigationCommand]

    public init(presenter: String, sequence: UInt64, epoch: String, commands: [NavigationCommand]) {
        self.presenter = presenter
        self.sequence = sequence
        self.epoch = epoch
        self.commands = commands
    }
}
