import FlowCore
import FlowWire

/// What became of a step: accepted by flows, or dropped — never silently, always with the reason.
public enum Fate: Sendable, Hashable, CustomStringConvertible {
    /// Flows navigated to the step.
    case accepted(flows: [FlowID])
    /// No flow took the step.
    case dropped(Drop)

    /// Whether the step was accepted.
    public var isAccepted: Bool {
        if case .accepted = self { true } else { false }
    }

    /// The reason it was dropped, or `nil` when it was accepted.
    public var drop: Drop? {
        if case .dropped(let drop) = self { drop } else { nil }
    }

    /// The fate a STEP_ACK carries.
    public init(_ wire: WireFate) {
        if wire.accepted {
            self = .accepted(flows: wire.flows)
        } else {
            self = .dropped(
                Drop(
                    reason: wire.reason ?? "unhandled",
                    explanation: wire.explanation ?? "",
                    remedy: wire.remedy,
                    presentable: wire.presentable,
                    flow: wire.flow
                )
            )
        }
    }

    public var description: String {
        switch self {
        case .accepted(let flows): "accepted by \(flows.map(\.description).joined(separator: ", "))"
        case .dropped(let drop): "dropped (\(drop.reason)): \(drop.explanation)"
        }
    }
}

/// Why a step was dropped, and what would have made it pass.
public struct Drop: Sendable, Hashable {
    /// The reason's code: `notVisible`, `dismissed`, `unboundStepper`, `flowEnded`, `adaptedAway`,
    /// `unknownSession`, `deepLinkExpired`, `unhandled`, `queueFull`, `noneStep`, `sessionEnded`, `tooManySteps`.
    public var reason: String
    /// What happened, in a sentence.
    public var explanation: String
    /// What would have made the step pass.
    public var remedy: String?
    /// The screen concerned (for `notVisible` and `dismissed`).
    public var presentable: PresentableID?
    /// The flow concerned (for `flowEnded` and `adaptedAway`).
    public var flow: FlowID?

    public init(
        reason: String,
        explanation: String,
        remedy: String? = nil,
        presentable: PresentableID? = nil,
        flow: FlowID? = nil
    ) {
        self.reason = reason
        self.explanation = explanation
        self.remedy = remedy
        self.presentable = presentable
        self.flow = flow
    }
}
