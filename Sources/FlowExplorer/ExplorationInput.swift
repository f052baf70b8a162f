import FlowCore

/// A screen named as a user (or a journey) would: its name, and which of the screens of that name it is, in the
/// order they are on screen (1 for the first).
public struct ScreenReference: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The screen's name (its type in the flow file).
    public let name: String
    /// Which of the screens of that name, from 1, in preorder (window roots first, then what they hold).
    public let occurrence: Int

    /// Creates a reference.
    public init(name: String, occurrence: Int = 1) {
        self.name = name
        self.occurrence = occurrence
    }

    public var description: String {
        occurrence == 1 ? name : "\(name)#\(occurrence)"
    }
}

/// Where a step comes from: a stepper process by name, or a screen's own stepper (its presenter emits as it).
public enum InputSource: Sendable, Hashable, Codable, CustomStringConvertible {
    case stepper(String)
    case screen(ScreenReference)

    public var description: String {
        switch self {
        case .stepper(let name): "stepper \(name)"
        case .screen(let screen): "screen \(screen)"
        }
    }

    /// The screen's name, for a screen.
    var screenName: String? {
        if case .screen(let screen) = self { screen.name } else { nil }
    }
}

/// One thing that can happen to a session from outside: what the explorer tries in every state, and what a path
/// (or a journey) is made of.
public enum ExplorationInput: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A step from a stepper or a screen.
    case step(Step, from: InputSource)
    /// A deep link of one step.
    case deepLink(Step)
    /// Every presenter reports what it shows as visible, and what it stopped showing as hidden.
    case reportShown
    /// The user selects the tab holding this screen (its presenter reports it visible).
    case selectTab(ScreenReference)
    /// The user dismisses this screen (a back button, a swipe: its presenter reports it dismissed).
    case dismiss(ScreenReference)
    /// The guard asked about a step answers.
    case guardAnswer(allowed: Bool)
    /// The session's data gets a value (what a flow's `adapt` rules read).
    case sessionData(key: String, value: JSONValue)

    /// Whether the input is a step a stepper or a screen sends (not a report, a user's gesture or an answer).
    public var isStep: Bool {
        if case .step = self { true } else { false }
    }

    /// Whether the input is something the user does on screen (a tab selected, a screen dismissed).
    public var isGesture: Bool {
        switch self {
        case .selectTab, .dismiss: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .step(let step, let source): "\(source): \(Self.text(of: step))"
        case .deepLink(let step): "deep link \(Self.text(of: step))"
        case .reportShown: "the presenters report what they show"
        case .selectTab(let screen): "the user selects the tab of \(screen)"
        case .dismiss(let screen): "the user dismisses \(screen)"
        case .guardAnswer(let allowed): "the guard \(allowed ? "allows" : "refuses") the step"
        case .sessionData(let key, let value):
            "session data \(key) = \(String(decoding: value.jsonText(), as: UTF8.self))"
        }
    }

    /// A step as `name {parameter: value}`.
    static func text(of step: Step) -> String {
        guard !step.parameters.isEmpty else { return step.name }
        let parameters = step.parameters.sorted { $0.key < $1.key }.map {
            "\($0.key): \(String(decoding: $0.value.jsonText(), as: UTF8.self))"
        }
        return "\(step.name) {\(parameters.joined(separator: ", "))}"
    }
}
