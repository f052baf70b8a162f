/// Where a contribution's steps come from, as the engine sees it (RxFlow's `Stepper` kinds).
///
/// Steppers are processes, screens or the coordinator itself; the engine only needs to know which source
/// is bound to which contribution, and which initial steps to emit.
public indirect enum Stepper: Sendable, Hashable, Codable, CustomStringConvertible {
    /// No steps at all (RxFlow's `NoneStepper`).
    case none
    /// A stepper process, by its id. Its steps arrive from outside.
    case named(String)
    /// The contributed presentable's own stepper: steps emitted "as" that screen by its presenter
    /// (RxFlow's `.contribute(withNext: viewControllerThatIsAStepper)`).
    case presentable
    /// One step emitted by the coordinator when the contribution starts (RxFlow's `OneStepper`).
    case one(Step)
    /// Several steppers: their initial steps in order, then whatever each emits (RxFlow's `CompositeStepper`).
    case composite([Stepper])

    /// RxFlow's `DefaultStepper`: emits ``Step/home`` once.
    public static let `default` = Stepper.one(.home)

    /// The steps the coordinator emits when the contribution starts, in order.
    public var initialSteps: [Step] {
        switch self {
        case .one(let step): step.isNone ? [] : [step]
        case .composite(let steppers): steppers.flatMap(\.initialSteps)
        case .none, .named, .presentable: []
        }
    }

    /// The named stepper processes this stepper listens to.
    public var stepperIDs: [String] {
        switch self {
        case .named(let id): [id]
        case .composite(let steppers): steppers.flatMap(\.stepperIDs)
        case .none, .presentable, .one: []
        }
    }

    /// Whether some named stepper process is listened to (``stepperIDs`` is not empty), without listing them.
    public var listensToSteppers: Bool {
        switch self {
        case .named: true
        case .composite(let steppers): steppers.contains { $0.listensToSteppers }
        case .none, .presentable, .one: false
        }
    }

    /// Whether the stepper process `id` is listened to (it is among ``stepperIDs``), without listing them.
    public func listens(toStepper id: String) -> Bool {
        switch self {
        case .named(let name): name == id
        case .composite(let steppers): steppers.contains { $0.listens(toStepper: id) }
        case .none, .presentable, .one: false
        }
    }

    /// Whether the contributed presentable's own steps are listened to.
    public var listensToPresentable: Bool {
        switch self {
        case .presentable: true
        case .composite(let steppers): steppers.contains { $0.listensToPresentable }
        case .none, .named, .one: false
        }
    }

    /// Whether steps from `source` reach a contribution with this stepper on `presentable`.
    func listens(to source: StepSource, presentable: PresentableID) -> Bool {
        switch source {
        case .stepper(let id): listens(toStepper: id)
        case .presentable(let id): id == presentable && listensToPresentable
        }
    }

    public var description: String {
        switch self {
        case .none: "none"
        case .named(let id): "stepper \(id)"
        case .presentable: "presentable"
        case .one(let step): "one(\(step))"
        case .composite(let steppers): "composite(" + steppers.map(\.description).joined(separator: ", ") + ")"
        }
    }
}

/// Who sent a step into a session.
public enum StepSource: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A named stepper process.
    case stepper(String)
    /// A presentable's own stepper (its presenter emits on its behalf).
    case presentable(PresentableID)

    public var description: String {
        switch self {
        case .stepper(let id): "stepper \(id)"
        case .presentable(let id): "presentable \(id)"
        }
    }
}
