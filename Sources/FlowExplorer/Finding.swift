import FlowSpec

/// Something the exploration found a flow file does wrong, where, and a shortest path of inputs that shows it.
public struct Finding: Sendable, Hashable, Codable {
    /// What kind of defect.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A handler no input ever runs (its flow never gets the step).
        case unreachableHandler
        /// A flow no input ever starts.
        case unreachableFlow
        /// A state from which no step, from any stepper or screen, changes anything.
        case deadEnd
        /// Screens left on screen by a flow that ended, with no contribution to take their steps.
        case orphanedUI
        /// A modal that, once presented, no step can dismiss (only the user's own gesture could).
        case undismissableModal
        /// A stack that grows by the same screens again and again.
        case unboundedStack
        /// A step dropped wherever it comes from.
        case alwaysDropped
        /// A step a flow sends on its own (`end`, a forward) that is dropped.
        case droppedForward
        /// A command a flow asks for that does not fit the screen.
        case rejectedCommand
    }

    /// How bad it is: an error fails `flowd check --explore`; a warning does with `--strict`.
    public enum Severity: String, Sendable, Hashable, Codable {
        case error, warning
    }

    public let kind: Kind
    public let severity: Severity
    /// What is wrong, and what to change.
    public let message: String
    /// The flow file's action, handler, flow or step concerned.
    public let location: SourceLocation?
    /// Inputs from a new session that show it (empty when nothing reaches it, as for what is unreachable).
    public let path: [ExplorationInput]
    /// For a stack that grows for ever: the inputs that, repeated, grow it again.
    public let cycle: [ExplorationInput]?

    init(
        _ kind: Kind,
        _ severity: Severity,
        _ message: String,
        at location: SourceLocation?,
        path: [ExplorationInput] = [],
        cycle: [ExplorationInput]? = nil
    ) {
        self.kind = kind
        self.severity = severity
        self.message = message
        self.location = location
        self.path = path
        self.cycle = cycle
    }
}
