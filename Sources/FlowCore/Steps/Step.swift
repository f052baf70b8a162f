/// A navigation intent: a name plus parameters, as RxFlow's `Step` but as data that can cross processes.
///
/// Swift programs usually write steps as an `enum` with associated values and convert with
/// ``StepRepresentable``; on the wire and in flow files a step is always `name` + `parameters`.
public struct Step: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The step's name, such as `movieIsPicked`.
    public var name: String
    /// The step's parameters, such as `{"withId": 23452}`.
    public var parameters: JSONObject

    /// Creates a step.
    public init(_ name: String, _ parameters: JSONObject = [:]) {
        self.name = name
        self.parameters = parameters
    }

    /// RxFlow's `RxFlowStep.home`: the step a ``Stepper/default`` stepper emits.
    public static let home = Step("home")

    /// "No step": filtered out wherever a stepper emits it, as RxFlow's `NoneStep`.
    public static let none = Step("none")

    /// Whether this is the "no step" step.
    public var isNone: Bool { name == Step.none.name }

    public var description: String {
        parameters.isEmpty ? name : "\(name)\(JSONValue.object(parameters))"
    }
}
