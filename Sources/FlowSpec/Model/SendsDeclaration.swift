import FlowCore

/// What the flow file says each sender sends (`sends:`): a screen's own steps, by the screen's name, and a stepper
/// process's, by its name. A sender the file does not list may send any declared step; one it lists sends only
/// those: flowd drops any other (`notDeclaredForSender`), and `flowd check --explore` tries exactly those.
public struct SendsDeclaration: Sendable {
    /// The steps one sender sends, as written.
    public struct Sends: Sendable {
        /// The steps, in file order, each with where it is written.
        public let steps: [(name: String, location: SourceLocation)]
        /// Where the sender's name is written.
        public let location: SourceLocation

        /// The steps' names.
        public var names: [String] { steps.map(\.name) }
    }

    /// By screen name.
    public let screens: [String: Sends]
    /// By stepper name.
    public let steppers: [String: Sends]

    /// Nothing declared: every sender may send any step.
    public static let none = SendsDeclaration(screens: [:], steppers: [:])

    /// Whether any sender is declared.
    public var isEmpty: Bool { screens.isEmpty && steppers.isEmpty }
}

extension FlowSpecification {
    /// The steps the screen `name` sends, as the flow file lists them; `nil` when it does not (any step).
    public func steps(sentByScreen name: String) -> [String]? {
        sends.screens[name]?.names
    }

    /// The steps the stepper process `name` sends, as the flow file lists them; `nil` when it does not (any step).
    public func steps(sentByStepper name: String) -> [String]? {
        sends.steppers[name]?.names
    }

    /// Why a step from a sender is dropped before any flow sees it: the flow file lists what the sender sends, and
    /// not this step. `screen`: the name of the screen a presentable source is (`nil` when it is not on screen).
    /// `nil` when the sender may send it.
    public func senderProblem(of step: Step, from source: StepSource, screen: String?) -> DropReason? {
        // On every step flowd takes: a file that lists no sender of the kind costs no lookup, and the sender's
        // words are made only for a drop.
        let declared: [String]?
        switch source {
        case .stepper(let name):
            declared = sends.steppers.isEmpty ? nil : steps(sentByStepper: name)
        case .presentable:
            declared = sends.screens.isEmpty ? nil : screen.flatMap { steps(sentByScreen: $0) }
        }
        guard let declared, !step.isNone, !declared.contains(step.name) else { return nil }
        let sender: String
        switch source {
        case .stepper(let name): sender = "stepper \(name)"
        case .presentable: sender = "screen \(screen ?? "?")"
        }
        return .notDeclaredForSender(step: step.name, sender: sender, sends: declared)
    }
}
