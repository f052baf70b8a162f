/// A Swift type that converts to and from a ``Step`` — usually an `enum` with associated values:
///
/// ```swift
/// enum MovieStep: StepRepresentable, Codable {
///     case moviesAreRequired
///     case movieIsPicked(withId: Int)
/// }
/// MovieStep.movieIsPicked(withId: 23452).step   // movieIsPicked {"withId": 23452}
/// ```
///
/// For a `Codable` enum the conversion is provided: the case name becomes the step's name and the associated
/// values its parameters, keyed by their labels (`_0`, `_1`... for unlabeled ones).
public protocol StepRepresentable: Sendable {
    /// The step this value stands for.
    var step: Step { get }
    /// The value a step stands for, or `nil` when the step is not one of this type's.
    init?(step: Step)
}

extension StepRepresentable where Self: Codable {
    public var step: Step {
        guard
            let value = try? FlowJSON.value(of: self),
            case .object(let members) = value, members.count == 1, let (name, payload) = members.first
        else {
            preconditionFailure("\(Self.self) must encode as an enum case to be a step")
        }
        return Step(name, payload.objectValue ?? [:])
    }

    public init?(step: Step) {
        let value = JSONValue.object([step.name: .object(step.parameters)])
        guard let decoded = try? FlowJSON.decode(Self.self, from: value) else {
            return nil
        }
        self = decoded
    }
}
