import FlowCore

/// One input to a session, as `flowctl record` writes it (one JSON object per line): what a stepper, presenter
/// or inspector sent flowd, with when. Replaying a session's actions in order rebuilds its tree: the engine is
/// deterministic, and everything else follows from these inputs.
public struct RecordedAction: Sendable, Hashable, Codable {
    /// What kind of input it is.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A step from a stepper (`stepper`), or from a screen (`presentable`, shown by `presenter`).
        case step
        /// A deep link (`path`).
        case deepLink
        /// A presenter's visibility report (`presenter`, `visibility`, `presentables`).
        case visibility
        /// A value of the session's data (`key`, `value`; `null` removes it).
        case sessionData
        /// A presenter went away (`presenter`): its screens became hidden.
        case presenterLost
    }

    /// Milliseconds since the recording started.
    public var at: Int64
    /// The session it went to.
    public var session: String
    public var kind: Kind
    public var step: Step?
    public var stepper: String?
    public var presentable: PresentableID?
    public var presenter: String?
    public var path: [Step]?
    public var visibility: Visibility?
    public var presentables: [PresentableID]?
    public var key: String?
    public var value: JSONValue?
    /// What flowd did with the input, when known: `accepted` or `dropped` (a step, `reason` saying why), or
    /// `refused` (an input flowd did not take, such as a report about a screen no longer on screen; `reason` is its
    /// error). A replay leaves refused inputs out, and checks that each step gets its recorded fate again.
    public var fate: Fate?
    /// Why a step was dropped, or an input refused.
    public var reason: String?

    /// What flowd did with an input.
    public enum Fate: String, Sendable, Hashable, Codable {
        case accepted, dropped, refused
    }

    /// An action of `kind`; fill in the fields its kind uses.
    public init(at: Int64, session: String, kind: Kind) {
        self.at = at
        self.session = session
        self.kind = kind
    }

    /// Why the action cannot be replayed, when a field its kind needs is missing.
    public var problem: String? {
        switch kind {
        case .step where step == nil: "a step without 'step'"
        case .step where stepper == nil && (presentable == nil || presenter == nil):
            "a step without 'stepper' (or 'presentable' and 'presenter')"
        case .deepLink where (path ?? []).isEmpty: "a deepLink without 'path'"
        case .visibility where presenter == nil || visibility == nil || presentables == nil:
            "a visibility report without 'presenter', 'visibility' and 'presentables'"
        case .sessionData where key == nil: "sessionData without 'key'"
        case .presenterLost where presenter == nil: "presenterLost without 'presenter'"
        default: nil
        }
    }
}
