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
                    reason: Drop.Reason(rawValue: wire.reason ?? "unhandled"),
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
    /// Why: one of the reasons below, or one a newer flowd gives that this client does not know (compare with the
    /// static members, `switch` with a `default`; its ``rawValue`` is the code on the wire).
    public struct Reason: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { rawValue = value }
        public var description: String { rawValue }

        /// The screen whose stepper sent it is not visible (or not reported yet).
        public static let notVisible: Reason = "notVisible"
        /// The screen whose stepper sent it was dismissed, which ended its contribution.
        public static let dismissed: Reason = "dismissed"
        /// No running flow or contribution listens to its sender.
        public static let unboundStepper: Reason = "unboundStepper"
        /// The flow it was for has ended.
        public static let flowEnded: Reason = "flowEnded"
        /// The flow's `adapt` turned it into no step.
        public static let adaptedAway: Reason = "adaptedAway"
        /// The session does not exist.
        public static let unknownSession: Reason = "unknownSession"
        /// A deep link waited too long for the session to become ready.
        public static let deepLinkExpired: Reason = "deepLinkExpired"
        /// The flow that got it has no handler for it.
        public static let unhandled: Reason = "unhandled"
        /// The session's queue of steps was full.
        public static let queueFull: Reason = "queueFull"
        /// The none step, which is never navigated.
        public static let noneStep: Reason = "noneStep"
        /// The session ended while it waited.
        public static let sessionEnded: Reason = "sessionEnded"
        /// One step led to too many others.
        public static let tooManySteps: Reason = "tooManySteps"
    }

    /// Why it was dropped.
    public var reason: Reason
    /// What happened, in a sentence.
    public var explanation: String
    /// What would have made the step pass.
    public var remedy: String?
    /// The screen concerned (for `notVisible` and `dismissed`).
    public var presentable: PresentableID?
    /// The flow concerned (for `flowEnded` and `adaptedAway`).
    public var flow: FlowID?

    /// A drop, as flowd tells it.
    public init(
        reason: Reason,
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
