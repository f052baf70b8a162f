import FlowBus
import FlowBusTesting
import FlowWire
import Foundation
import Testing

/// `flowctl steps`, `flowctl flows` and `flowctl emit --from/--repeat` against a real flowd on the scripted journey:
/// the wishlist's table p5 covered (hidden) by the movie p7 (visible).
@Suite struct IntrospectionTests {
    @Test func stepsTellWhoMayEmitWhatNowAndWhatItWouldDo() async throws {
        let bus = try Bus()
        let presenter = try await ScriptedJourney(bus: bus).run()
        let json = try bus.flowctl(["steps", "kiosk", "--json"])
        #expect(json.status == 0, "\(json.errors)")
        let report = try JSONDecoder().decode(StepsReport.self, from: Data(json.output.utf8))
        #expect(report.session == "kiosk")
        let app = try #require(report.sources.first { $0.stepper == "app" })
        #expect(app.flows == ["AppFlow"])
        #expect(app.steps.first { $0.step == "dashboardIsRequired" }?.passes == true)
        // The covered table: its steps would be dropped, and the reply says why and what would make them pass.
        let table = try #require(report.sources.first { $0.presentable == PresentableID(5) })
        #expect(table.name == "WishlistTable" && table.visibility == .hidden)
        let picked = try #require(table.steps.first { $0.step == "movieIsPicked" })
        #expect(picked.passes == false && picked.reason == "notVisible")
        #expect(picked.remedy?.contains("reported visible by its presenter") == true)
        #expect(picked.parameters == ["withId": "int"])
        #expect(picked.actions == ["WishlistFlow: pop to root", "WishlistFlow: show MovieDetail(movieId: $withId)"])
        // The visible movie: its steps would pass.
        let movie = try #require(report.sources.first { $0.presentable == PresentableID(7) })
        #expect(movie.visibility == .visible)
        #expect(movie.steps.first { $0.step == "castIsPicked" }?.passes == true)
        // Trying changed nothing.
        #expect(try await bus.visibility(of: 7, in: "kiosk") == "visible")
        #expect(try bus.flowctl(["tree", "kiosk"]).output.components(separatedBy: "CastDetail").count == 1)

        let text = try bus.flowctl(["steps", "kiosk"])
        #expect(text.output.contains("screen p5 WishlistTable [hidden] → WishlistFlow\n"))
        #expect(
            text.output.contains(
                "  ✘ movieIsPicked(withId: int)\n      dropped, notVisible: its presentable p5 was hidden\n"
            )
        )
        #expect(
            text.output.contains(
                "  ✔ castIsPicked(withId: int)\n      WishlistFlow: show CastDetail(castId: $withId)\n"
            )
        )

        // A dismissed screen has no steps any more: it is not listed, and emitting as it is refused.
        try presenter.report(.dismissed, [PresentableID(7)])
        try await eventually("p7 dismissed") { try await bus.visibility(of: 7, in: "kiosk") == nil }
        let after = try JSONDecoder().decode(
            StepsReport.self,
            from: Data(try bus.flowctl(["steps", "kiosk", "--json"]).output.utf8)
        )
        #expect(!after.sources.contains { $0.presentable == PresentableID(7) })
        let gone = try bus.flowctl([
            "emit", "castIsPicked", "--param", "withId=3", "--from", "p7", "--session", "kiosk",
        ])
        #expect(gone.status == 1)
        #expect(gone.errors.contains("p7 is not on screen in session 'kiosk'"))
        #expect(try bus.flowctl(["steps", "nowhere"]).status == 1)
        await presenter.close()
        #expect(bus.daemon.signal(SIGTERM) == 0)
    }

    @Test func emitActsAsAScreenRepeatsAndNamesWhoMayEmitAnUnboundStep() async throws {
        let bus = try Bus()
        let presenter = try await ScriptedJourney(bus: bus).run()
        // As the visible movie, by name: accepted (its cast detail, p8, opens over it, not reported visible).
        let accepted = try bus.flowctl(["emit", "castIsPicked", "--param", "withId=3", "--from", "MovieDetail"])
        #expect(accepted.status == 0, "\(accepted.output) \(accepted.errors)")
        #expect(accepted.output.contains("accepted by f3 WishlistFlow"))
        // As the covered table: dropped, and why.
        let dropped = try bus.flowctl(["emit", "movieIsPicked", "--param", "withId=1", "--from", "p5"])
        #expect(dropped.status == 2)
        #expect(dropped.output.contains("dropped (notVisible)"))
        // As no bound stepper (flowctl's default): the remedy speaks of the flow file, and who may emit it is named.
        let unbound = try bus.flowctl(["emit", "movieIsPicked", "--param", "withId=1"])
        #expect(unbound.status == 2)
        #expect(unbound.output.contains("dropped (unboundStepper)"))
        #expect(unbound.output.contains("bind the stepper in the flow file: `stepper: { named: NAME }`"))
        #expect(unbound.output.contains("sent as stepper flowctl (emit's default; --as or --from sends as another)"))
        #expect(
            unbound.output.contains(
                "who may emit it now: screen p5 WishlistTable (--from p5) (would be dropped now: notVisible)"
            )
        )
        // Not the cast detail the movie opened: the flow file says it sends no step (`sends:`).
        #expect(unbound.output.contains("screen p6 WatchedCollection (--from p6)"))
        #expect(!unbound.output.contains("CastDetail"))
        // Several times, paced.
        let repeated = try bus.flowctl(["emit", "dashboardIsRequired", "--as", "app", "--repeat", "3", "--rate", "50"])
        #expect(repeated.status == 0, "\(repeated.errors)")
        #expect(repeated.output == "1: accepted\n2: accepted\n3: accepted\n")
        #expect(repeated.errors.contains("emitted 3: 3 accepted, 0 dropped"))
        // Tried: --as with --from, --rate without --repeat, --repeat 0, a negative rate, a screen no one shows.
        for arguments in [
            ["--as", "app", "--from", "p5"], ["--rate", "5"], ["--repeat", "0"], ["--repeat", "2", "--rate", "-1"],
        ] {
            let refused = try bus.flowctl(["emit", "moviesAreRequired"] + arguments)
            #expect(refused.status == 64, "\(arguments): \(refused.errors)")
        }
        let nowhere = try bus.flowctl(["emit", "moviesAreRequired", "--from", "Nowhere"])
        #expect(nowhere.status == 1)
        #expect(nowhere.errors.contains("no screen named 'Nowhere' is on screen in kiosk; it shows p1 app"))
        await presenter.close()
        #expect(bus.daemon.signal(SIGTERM) == 0)
    }

    @Test func flowsShowTheFlowFileFlowdRuns() throws {
        let bus = try Bus()
        let text = try bus.flowctl(["flows"])
        #expect(text.status == 0, "\(text.errors)")
        #expect(text.output.hasPrefix("flows from \(demoFlows)\na session starts with AppFlow, stepper app\nsteps:\n"))
        #expect(text.output.contains("  movieIsPicked(withId: int)\n"))
        #expect(text.output.contains("flow WishlistFlow — root stack wishlist\n"))
        #expect(text.output.contains("  on movieIsPicked: pop to root; show MovieDetail(movieId: $withId)\n"))
        #expect(
            text.output.contains(
                "  on onboardingIsRequired: dismiss presented; start OnboardingFlow as present, stepper one(introIsRequired)\n"
            )
        )
        let report = try JSONDecoder().decode(
            FlowsReport.self,
            from: Data(try bus.flowctl(["flows", "--json"]).output.utf8)
        )
        #expect(report.rootFlow == "AppFlow")
        #expect(report.steps.first { $0.name == "castIsPicked" }?.parameters == ["withId": "int"])
        #expect(report.flows.contains { $0.name == "SettingsFlow" && !$0.adapts.isEmpty })
        #expect(report.screens.contains("MovieDetail"))
        #expect(bus.daemon.signal(SIGTERM) == 0)
    }

    /// An adapt rule shows in `steps`: About without the permission becomes `unauthorized`; and `emit` of a step no
    /// running flow handles says which flow would.
    @Test func stepsShowAdaptRulesAndEmitSaysWhichFlowWouldHandleAStep() async throws {
        let bus = try Bus()
        let presenter = try await ScriptedJourney(bus: bus).run()
        let closed = try bus.flowctl(["emit", "aboutIsRequired"])
        #expect(closed.status == 2)
        #expect(
            closed.output.contains(
                "no stepper or screen may emit it now: SettingsFlow handles it and is not running (open it first)"
            ),
            "\(closed.output)"
        )
        // Settings opened by a deep link (the movie on screen has no settings button: `sends:`).
        #expect(try bus.flowctl(["deeplink", "settingsAreRequired"]).status == 0)
        let report = try JSONDecoder().decode(
            StepsReport.self,
            from: Data(try bus.flowctl(["steps", "kiosk", "--json"]).output.utf8)
        )
        let settings = try #require(report.sources.first { $0.stepper == "settings" })
        let about = try #require(settings.steps.first { $0.step == "aboutIsRequired" })
        #expect(about.adaptedTo == "unauthorized", "\(about)")
        #expect(about.actions.contains { $0.hasPrefix("SettingsFlow: ") && $0.contains("Alert") }, "\(about.actions)")
        #expect(try bus.flowctl(["steps", "kiosk"]).output.contains("aboutIsRequired → adapted into unauthorized"))
        // Tried: --json with --format dot; a step the flow file does not declare for bench.
        #expect(try bus.flowctl(["tree", "kiosk", "--json", "--format", "dot"]).status == 64)
        let bench = try bus.flowctl(["bench", "--step", "nosuch", "--steps", "1"])
        #expect(bench.status == 1 && bench.errors.contains("the flow file declares no step 'nosuch'"))
        await presenter.close()
        #expect(bus.daemon.signal(SIGTERM) == 0)
    }

    /// Each step `steps` tries copies the session on flowd's loop: a large session's are bounded (256), the others
    /// listed untried.
    @Test func aLargeSessionsStepsAreTriedUpToTheBound() async throws {
        // Each `more` pushes one more item, which takes the flow's four steps of its own.
        let flows = uniqueDirectory() + "-items.yaml"
        defer { try? FileManager.default.removeItem(atPath: flows) }
        try """
        version: 1
        session:
          root: Main
          stepper: { named: app }
        steps:
          more: {}
          a: {}
          b: {}
          c: {}
        flows:
          Main:
            root: { stack: main }
            on:
              more:
                - show: Item
              a: []
              b: []
              c: []
        """.write(toFile: flows, atomically: true, encoding: .utf8)
        let bus = try Bus(flows: flows)
        let app = try await StepperClient.connect(session: "big", name: "app", options: bus.options)
        for _ in 0..<100 {
            #expect(try await app.emit("more").isAccepted)
        }
        let reply = try bus.flowctl(["steps", "big", "--json"])
        #expect(reply.status == 0, "\(reply.errors)")
        let report = try JSONDecoder().decode(StepsReport.self, from: Data(reply.output.utf8))
        let candidates = report.sources.flatMap(\.steps)
        #expect(candidates.count > 256, "only \(candidates.count) steps to try")
        #expect(candidates.filter { $0.passes != nil || $0.guardName != nil }.count == 256)
        #expect(report.untried == candidates.count - 256)
        #expect(
            try bus.flowctl(["steps", "big"]).output.contains("steps listed untried, marked ?: flowd tries at most 256")
        )
        await app.close()
        #expect(bus.daemon.signal(SIGTERM) == 0)
    }
}
