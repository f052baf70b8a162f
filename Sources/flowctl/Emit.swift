import ArgumentParser
import FlowBus
import FlowInspector
import FlowWire

/// `flowctl emit STEP`: inject a step, and tell its fate.
struct Emit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Inject a step into a session, as a stepper or as a screen, and print its fate.",
        discussion: """
            The step goes through flowd like any stepper's: adapt, visibility, guards. --as names the stepper it \
            comes from, so steps bound to that stepper's contributions pass (the stepper itself may stay \
            connected); --from names a screen (p5, or its name when one screen has it) and the step goes where \
            that screen's own steps go, as if its presenter emitted it. `flowctl steps` lists who may emit what. \
            Parameter values are JSON when they read as JSON (42, true, "007", [1,2]), text otherwise. \
            --repeat sends it several times, each once the one before has its fate, or --rate per second.

            Exits 0 when the step is accepted (every one, with --repeat), 2 when one is dropped (the reason and \
            what would make it pass are printed, and who may emit it when no stepper of its name is bound), 1 \
            when flowd refuses it (an undeclared step, parameters that do not fit its declaration, a screen not on \
            screen...), 69 when flowd is unreachable.

            Examples:
              flowctl emit onboardingIsRequired --as app --session kiosk-7
              flowctl emit movieIsPicked --param withId=23452 --from WishlistTable
              flowctl emit moviesAreRequired --from p5 --repeat 20 --rate 20
              flowctl emit settingsAreRequired --json | jq .reason
            """
    )

    @OptionGroup var injection: InjectionOptions

    @Argument(help: "The step's name.")
    var step: String

    @Option(
        name: .customLong("param"),
        help: ArgumentHelp("A parameter, key=value (repeat for more).", valueName: "key=value"),
        transform: Parameter.parse
    )
    var parameters: [Parameter] = []

    @Option(
        help: ArgumentHelp(
            "Emit as this screen (pN, or its name when one screen has it), as its presenter would.",
            valueName: "screen"
        )
    )
    var from: String?

    @Option(name: .customLong("repeat"), help: "Emit it this many times.")
    var times = 1

    @Option(help: "With --repeat: steps per second (default: each once the one before has its fate).")
    var rate: Double?

    @OptionGroup var bus: BusOptions

    func validate() throws {
        guard !step.isEmpty else {
            throw ValidationError("the step needs a name")
        }
        guard times >= 1 else {
            throw ValidationError("--repeat must be 1 or more, not \(times)")
        }
        if let rate {
            guard rate > 0, rate.isFinite else {
                throw ValidationError("--rate must be a positive number of steps per second, not \(rate)")
            }
            guard times > 1 else {
                throw ValidationError("--rate paces --repeat; give --repeat N too")
            }
        }
        if let from {
            guard !from.isEmpty else {
                throw ValidationError("--from needs a screen: pN, or its name")
            }
            if injection.stepperGiven {
                throw ValidationError("--as and --from contradict each other: a step comes from a stepper or a screen")
            }
        }
    }

    func run() async throws {
        var values: JSONObject = [:]
        for parameter in parameters {
            values[parameter.key] = parameter.value
        }
        let step = Step(step, values)
        var screen: PresentableID?
        try await injection.inject(bus, step: step.name, screen: from, times: times, rate: rate) { inspector, session in
            guard let from else {
                return try await inspector.emit(step, session: session)
            }
            if screen == nil {
                screen = try await Self.screen(from, in: session, inspector, bus: bus)
            }
            return try await inspector.emit(step, from: screen ?? PresentableID(0), session: session)
        }
    }

    /// The screen `text` names in `session`: `p5` or `5`, or a name only one screen on screen has.
    static func screen(
        _ text: String,
        in session: String,
        _ inspector: InspectorClient,
        bus: BusOptions
    ) async throws -> PresentableID {
        let digits = text.hasPrefix("p") ? String(text.dropFirst()) : text
        if let id = UInt32(digits) {
            return PresentableID(id)
        }
        let tree = try SessionTree(try await bus.query(inspector, "tree", session: session))
        let named = tree.screens.filter { $0.name == text }
        guard named.count == 1, let screen = named.first else {
            let shown = tree.screens.map { "p\($0.id.rawValue) \($0.name)" }.joined(separator: ", ")
            throw FlowBusError(
                .invalidOptions,
                named.isEmpty
                    ? "no screen named '\(TerminalText.safe(text))' is on screen in \(TerminalText.safe(session)); it shows \(TerminalText.safe(shown))"
                    : "\(named.count) screens are named '\(TerminalText.safe(text))' (\(named.map { "p\($0.id.rawValue)" }.joined(separator: ", "))): give one as pN"
            )
        }
        return screen.id
    }
}

/// `flowctl deeplink STEP...`: send a deep link, and tell its fate.
struct DeepLink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deeplink",
        abstract: "Send a deep link — one step, or a path of steps opening nested flows — to every flow of a session.",
        discussion: """
            Each step is NAME or NAME:key=value,key=value. A deep link that arrives before the session is ready \
            waits (bounded). Exits 0 when it is accepted, 2 when it is dropped, 1 when refused, 69 when flowd is \
            unreachable.

            Examples:
              flowctl deeplink settingsAreRequired --session kiosk-7
              flowctl deeplink dashboardIsRequired movieIsPicked:withId=23452 castIsPicked:withId=3
            """
    )

    @OptionGroup var injection: InjectionOptions

    @Argument(help: "The steps of the path, in order: NAME or NAME:key=value,key=value.")
    var path: [StepArgument] = []

    @OptionGroup var bus: BusOptions

    func validate() throws {
        guard !path.isEmpty else {
            throw ValidationError("name at least one step")
        }
    }

    func run() async throws {
        let steps = path.map(\.step)
        try await injection.inject(bus) { inspector, session in
            try await inspector.deepLink(steps, session: session)
        }
    }
}
