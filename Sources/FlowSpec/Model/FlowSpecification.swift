import FlowCore

/// A whole application's navigation, read from a flow file: the session's root flow and first stepper, the
/// steps it uses, and every flow.
public struct FlowSpecification: Sendable {
    /// The format version this FlowBus reads.
    public static let currentVersion = 1

    /// What the specification holds, in one object: a specification (and so each of the flows made from it, which
    /// hold it) is one reference, and a flow of the file fits in the engine's value for a flow with no allocation.
    private final class Content: Sendable {
        let file: String
        let session: SessionSpec
        let steps: [StepDeclaration]
        let flows: [FlowDefinition]
        let sends: SendsDeclaration
        let source: String
        let rootStepper: Stepper
        let stepIndex: [String: Int]
        let flowIndex: [String: Int]

        init(
            file: String,
            session: SessionSpec,
            steps: [StepDeclaration],
            flows: [FlowDefinition],
            sends: SendsDeclaration,
            source: String
        ) {
            self.file = file
            self.session = session
            self.steps = steps
            self.flows = flows
            self.sends = sends
            self.source = source
            rootStepper = session.stepper.compiled(for: .none)
            stepIndex = Dictionary(steps.enumerated().map { ($1.name, $0) }) { first, _ in first }
            flowIndex = Dictionary(flows.enumerated().map { ($1.name, $0) }) { first, _ in first }
        }
    }

    private var content: Content

    /// The file it was read from.
    public var file: String { content.file }
    /// How a new session starts.
    public var session: SessionSpec { content.session }
    /// Every step, with its parameters, in file order.
    public var steps: [StepDeclaration] { content.steps }
    /// Every flow, in file order.
    public var flows: [FlowDefinition] { content.flows }
    /// What each sender sends, where the file says so (`sends:`).
    public var sends: SendsDeclaration { content.sends }
    /// The text it was read from: what a daemon keeps with its journal, to replay it with the same flows.
    public internal(set) var source: String {
        get { content.source }
        set {
            content = Content(file: file, session: session, steps: steps, flows: flows, sends: sends, source: newValue)
        }
    }
    /// The root flow's own stepper, made once: every session shares it (made for each, it took 700 bytes of each
    /// idle session in flowd, with sixteen named steppers).
    public var rootStepper: Stepper { content.rootStepper }

    init(
        file: String,
        session: SessionSpec,
        steps: [StepDeclaration],
        flows: [FlowDefinition],
        sends: SendsDeclaration = .none
    ) {
        content = Content(file: file, session: session, steps: steps, flows: flows, sends: sends, source: "")
    }

    /// Where the flow named `name` is in ``flows`` (the first of that name).
    func flowIndex(named name: String) -> Int? {
        content.flowIndex[name]
    }

    /// The flow with this name.
    public func flow(named name: String) -> FlowDefinition? {
        flowIndex(named: name).map { flows[$0] }
    }

    /// The step declaration with this name.
    public func step(named name: String) -> StepDeclaration? {
        content.stepIndex[name].map { steps[$0] }
    }

    /// The number of distinct screen names the flows show.
    public var screenNames: [String] {
        var names: [String] = []
        for flow in flows {
            for handler in flow.handlers {
                for presentation in handler.actions.flatMap(\.presentations) where !presentation.isFlow {
                    if !names.contains(presentation.target) {
                        names.append(presentation.target)
                    }
                }
            }
        }
        return names
    }
}

/// How a new session starts: its root flow and the stepper that drives it.
public struct SessionSpec: Sendable {
    /// The root flow's name.
    public let rootFlow: String
    /// The root flow's own stepper.
    public let stepper: StepperSpec
    /// Whether the root flow keeps taking its stepper's steps after its root is dismissed (RxFlow's
    /// `coordinate(flow:with:allowStepWhenDismissed:)`).
    public var allowStepWhenDismissed = false
    /// Where `root` is written.
    public let location: SourceLocation
}

/// A step the application uses, and the parameters it carries.
public struct StepDeclaration: Sendable {
    /// The step's name.
    public let name: String
    /// Its parameters, in file order.
    public let parameters: [ParameterDeclaration]
    /// Where it is declared.
    public let location: SourceLocation
}

/// A step parameter and its type.
public struct ParameterDeclaration: Sendable {
    /// The parameter's name.
    public let name: String
    /// Its type.
    public let type: ParameterType
    /// Whether a step may leave it out (or give `null`): declared with `?` after its type (`withId: int?`).
    public let optional: Bool
    /// Where it is declared.
    public let location: SourceLocation

    init(name: String, type: ParameterType, optional: Bool = false, location: SourceLocation) {
        self.name = name
        self.type = type
        self.optional = optional
        self.location = location
    }
}

extension StepDeclaration {
    /// Placeholder values (``ParameterType/placeholder``) for the required parameters.
    public var placeholderParameters: JSONObject {
        var values: JSONObject = [:]
        for parameter in parameters where !parameter.optional {
            values[parameter.name] = parameter.type.placeholder
        }
        return values
    }

    /// The first of `parameters` that does not match the declaration, and how: a required one missing (or null),
    /// one of another type, or one not declared. `nil` when they all match.
    public func mismatch(in parameters: JSONObject) -> (parameter: String, problem: String)? {
        matchesQuickly(parameters) ? nil : firstMismatch(in: parameters)
    }

    /// Whether `parameters` match the declaration, found without hashing a name: each given one is looked for
    /// among the few declared (by comparing names), and the required ones are counted. `false` also when they may
    /// not match: ``firstMismatch(in:)`` says which and how, in the declaration's order.
    private func matchesQuickly(_ parameters: JSONObject) -> Bool {
        guard parameters.count <= Self.quicklyMatchedCount else { return false }
        var requiredGiven = 0
        for (name, value) in parameters {
            guard let index = self.parameters.indices.first(where: { self.parameters[$0].name == name }) else {
                return false
            }
            if value == .null {
                guard self.parameters[index].optional else { return false }
                continue
            }
            guard self.parameters[index].type.accepts(value) else { return false }
            if !self.parameters[index].optional { requiredGiven += 1 }
        }
        return requiredGiven == self.parameters.count(where: { !$0.optional })
    }

    /// Up to how many given parameters ``matchesQuickly(_:)`` compares names (beyond, hashing them is cheaper).
    private static let quicklyMatchedCount = 8

    private func firstMismatch(in parameters: JSONObject) -> (parameter: String, problem: String)? {
        // Declared names are distinct (they come from a mapping): when as many of the step's are declared as it
        // has, none is extra, and nothing more is looked at.
        var declaredGiven = 0
        for declared in self.parameters {
            let given = parameters[declared.name]
            if given != nil { declaredGiven += 1 }
            guard let value = given, value != .null else {
                if declared.optional { continue }
                let found = given == nil ? "is missing" : "is null"
                return (declared.name, "\(found) (it must be \(declared.type.article))")
            }
            guard declared.type.accepts(value) else {
                return (declared.name, "must be \(declared.type.article), not \(value.kindName)")
            }
        }
        guard declaredGiven < parameters.count else { return nil }
        let known = Set(self.parameters.map(\.name))
        if let extra = parameters.keys.sorted().first(where: { !known.contains($0) }) {
            return (extra, "is not declared for \(name)")
        }
        return nil
    }
}

extension FlowSpecification {
    /// Why a step from outside (a STEP, or a step of a DEEPLINK) is dropped before any flow sees it: its
    /// parameters do not match its declaration. `nil` when they do, or when the step is not declared (refused
    /// before, with `unknownStep`).
    public func parameterProblem(of step: Step) -> DropReason? {
        self.step(named: step.name)?.problem(with: step)
    }
}

extension StepDeclaration {
    /// Why `step` (of this declaration) is dropped before any flow sees it: its parameters do not match. `nil` when
    /// they do.
    public func problem(with step: Step) -> DropReason? {
        guard let (parameter, problem) = mismatch(in: step.parameters) else { return nil }
        return .invalidParameters(step: step.name, parameter: parameter, problem: problem)
    }
}

/// The type of a step parameter.
public enum ParameterType: String, Sendable, CaseIterable {
    case int, double, string, bool, any

    /// A value of this type, for trying a step whose values do not matter (what flows do with a step depends on
    /// where its values go, not on what they are): `flowctl steps` and `flowctl bench`.
    public var placeholder: JSONValue {
        switch self {
        case .int: .int(0)
        case .double: .double(0)
        case .string: .string("")
        case .bool: .bool(false)
        case .any: .null
        }
    }

    /// The type in words, with its article: `an int`, `a string`, `anything`.
    public var article: String {
        switch self {
        case .int: "an int"
        case .double: "a double"
        case .string: "a string"
        case .bool: "a bool"
        case .any: "anything"
        }
    }

    /// Whether `value` is of this type.
    public func accepts(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.any, _), (.int, .int), (.double, .double), (.double, .int), (.string, .string), (.bool, .bool): true
        default: false
        }
    }
}

/// A stepper as written in a flow file.
public indirect enum StepperSpec: Sendable {
    /// The screen's own stepper (`own`).
    case own
    /// A stepper process (`{named: auth}`).
    case named(String)
    /// One step (`{one: introIsRequired}`).
    case one(StepTemplate)
    /// `home` once (`default`).
    case `default`
    /// No steps (`none`).
    case none
    /// Several (`{composite: [...]}`).
    case composite([StepperSpec])

    /// The steps it emits itself.
    public var templates: [StepTemplate] {
        switch self {
        case .one(let template): [template]
        case .composite(let steppers): steppers.flatMap(\.templates)
        case .own, .named, .default, .none: []
        }
    }

    /// The stepper processes it listens to, by name.
    public var stepperNames: [String] {
        switch self {
        case .named(let name): [name]
        case .composite(let steppers): steppers.flatMap(\.stepperNames)
        case .own, .one, .default, .none: []
        }
    }
}

/// A step to emit, whose parameters may be taken from the step being handled (`$name`).
public struct StepTemplate: Sendable {
    /// The step's name.
    public let name: String
    /// Its parameters.
    public let parameters: [(name: String, value: ValueTemplate)]
    /// Where it is written.
    public let location: SourceLocation
}

/// A value: written in the file, or taken from the step being handled.
public enum ValueTemplate: Sendable {
    /// This value.
    case literal(JSONValue)
    /// The parameter of this name of the step being handled (`$withId`).
    case reference(String)
}
