import FlowCore

/// STEP: a step from a stepper, or from a screen through its presenter.
public struct StepMessage: Sendable, Hashable, Codable {
    /// The step.
    public var step: Step
    /// The sender's sequence number for this step, increasing from 1; a resent step keeps its number and is
    /// applied once.
    public var sequence: UInt64
    /// Set when a presenter emits the step as one of its screens (the screen's own stepper).
    public var presentable: PresentableID?

    public init(step: Step, sequence: UInt64, presentable: PresentableID? = nil) {
        self.step = step
        self.sequence = sequence
        self.presentable = presentable
    }
}

/// DEEPLINK: a step (or a path of steps) sent to every flow of the session.
public struct DeepLinkMessage: Sendable, Hashable, Codable {
    /// The path: one step, or several that open nested flows in turn.
    public var path: [Step]
    /// The sender's sequence number, shared with its STEP messages.
    public var sequence: UInt64

    public init(path: [Step], sequence: UInt64) {
        self.path = path
        self.sequence = sequence
    }
}

/// STEP_ACK: the fate of a STEP or DEEPLINK, by its sequence number.
public struct StepAck: Sendable, Hashable, Codable {
    /// The acknowledged message's sequence number.
    public var sequence: UInt64
    /// What became of it.
    public var fate: WireFate

    public init(sequence: UInt64, fate: WireFate) {
        self.sequence = sequence
        self.fate = fate
    }
}

/// A step's fate as it travels: accepted (by which flows) or dropped, with the reason in words.
public struct WireFate: Sendable, Hashable, Codable {
    /// Whether the step was accepted.
    public var accepted: Bool
    /// The flows that navigated it (when accepted).
    public var flows: [FlowID]
    /// Why it was dropped: a FlowCore `DropReason` code such as `notVisible` (when not accepted).
    public var reason: String?
    /// The presentable concerned, for `notVisible` and `dismissed`.
    public var presentable: PresentableID?
    /// The flow concerned, for `flowEnded` and `adaptedAway`.
    public var flow: FlowID?
    /// The parameter concerned, for `invalidParameters`.
    public var parameter: String?
    /// What happened, in a sentence.
    public var explanation: String?
    /// What would have made it pass.
    public var remedy: String?

    /// Creates a fate from its parts, as a peer reads it.
    public init(
        accepted: Bool,
        flows: [FlowID],
        reason: String? = nil,
        presentable: PresentableID? = nil,
        flow: FlowID? = nil,
        parameter: String? = nil,
        explanation: String? = nil,
        remedy: String? = nil
    ) {
        self.accepted = accepted
        self.flows = flows
        self.reason = reason
        self.presentable = presentable
        self.flow = flow
        self.parameter = parameter
        self.explanation = explanation
        self.remedy = remedy
    }

    /// The wire form of an engine fate.
    public init(_ fate: StepFate) {
        switch fate {
        case .accepted(let flows):
            accepted = true
            self.flows = flows
        case .dropped(let reason):
            accepted = false
            flows = []
            self.reason = reason.code
            explanation = reason.description
            remedy = reason.remedy
            switch reason {
            case .notVisible(let id, _), .dismissed(let id): presentable = id
            case .flowEnded(let id), .adaptedAway(let id): flow = id
            case .invalidParameters(_, let name, _): parameter = name
            default: break
            }
        }
    }
}
