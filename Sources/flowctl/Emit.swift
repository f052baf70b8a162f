import ArgumentParser
import FlowBus

/// `flowctl emit STEP`: inject a step, and tell its fate.
struct Emit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Inject a step into a session, as a stepper, and print its fate.",
        discussion: """
            The step goes through flowd like any stepper's: adapt, visibility, guards. --as names the stepper it \
            comes from, so steps bound to that stepper's contributions pass (the stepper itself may stay \
            connected). Parameter values are JSON when they read as JSON (42, true, "007", [1,2]), text otherwise.

            Exits 0 when the step is accepted, 2 when it is dropped (the reason and what would make it pass are \
            printed), 1 when flowd refuses it (an undeclared step...), 69 when flowd is unreachable.

            Examples:
              flowctl emit dashboardIsRequired --as app --session kiosk-7
              flowctl emit movieIsPicked --param withId=23452 --as app
              flowctl emit logout --json | jq .reason
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

    @OptionGroup var bus: BusOptions

    func validate() throws {
        guard !step.isEmpty else {
            throw ValidationError("the step needs a name")
        }
    }

    func run() async throws {
        var values: JSONObject = [:]
        for parameter in parameters {
            values[parameter.key] = parameter.value
        }
        let step = Step(step, values)
        try await injection.inject(bus) { inspector, session in
            try await inspector.emit(step, session: session)
        }
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
