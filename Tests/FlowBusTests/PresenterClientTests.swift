import FlowBus
import FlowBusTesting
import FlowCore
import Foundation
import Testing

@Suite struct PresenterClientTests {
    @Test(arguments: Transport.allCases)
    func aPresenterStartsFromARebuildThenGetsEachNavigationInOrder(transport: Transport) async throws {
        let daemon = try Daemon(transport)
        let presenter = UpdateRecorder(try await PresenterClient.connect(session: "kiosk", options: daemon.options()))
        try await presenter.wait { !$0.isEmpty }
        guard case .rebuild(let first) = presenter.updates[0] else {
            Issue.record("the first update is not a rebuild: \(presenter.updates[0])")
            return
        }
        #expect(first.reason == .start)

        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: daemon.options())
        #expect(try await app.emit("onboardingIsRequired").isAccepted)
        try await presenter.wait { _ in presenter.visibleNames.last == "OnboardingIntro" }
        let intro = try #require(presenter.presentable(named: "OnboardingIntro"))
        // The screen's own steps go out through its presenter, once it is reported visible.
        try await eventually { try await presenter.presenter.emit(Step("introIsComplete"), from: intro).isAccepted }
        try await presenter.wait { _ in presenter.visibleNames.last == "OnboardingApiKey" }

        let sequences = presenter.updates.dropFirst().compactMap { update -> UInt64? in
            if case .navigate(let navigation) = update { navigation.sequence } else { nil }
        }
        #expect(sequences == Array(first.sequence + 1...first.sequence + UInt64(sequences.count)))
        #expect(presenter.presenter.screens == presenter.updates.last?.screens)
        await app.close()
        await presenter.presenter.close()
    }

    @Test func aPresenterThatJoinsLateStartsFromEverythingAlreadyShown() async throws {
        let daemon = try Daemon()
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: daemon.options())
        #expect(try await app.emit("dashboardIsRequired").isAccepted)
        // The navigations happened with no presenter connected; one that joins now gets them all at once.
        let presenter = UpdateRecorder(try await PresenterClient.connect(session: "kiosk", options: daemon.options()))
        try await presenter.wait { !$0.isEmpty }
        guard case .rebuild(let rebuild) = presenter.updates[0] else {
            Issue.record("the first update is not a rebuild")
            return
        }
        #expect(rebuild.reason == .start)
        #expect(rebuild.sequence > 1)
        #expect(presenter.visibleNames == ["app", "dashboard", "wishlist", "WishlistTable"])
        // And it goes on from there.
        let table = try #require(presenter.presentable(named: "WishlistTable"))
        try await eventually {
            try await presenter.presenter.emit(Step("movieIsPicked", ["withId": 1]), from: table).isAccepted
        }
        try await presenter.wait { _ in presenter.visibleNames.last == "MovieDetail" }
        await app.close()
        await presenter.presenter.close()
    }

    @Test func aScreensStepsAreDroppedWhileHiddenAndAcceptedOnceVisible() async throws {
        let daemon = try Daemon()
        let presenter = UpdateRecorder(
            try await PresenterClient.connect(session: "kiosk", options: daemon.options()),
            reportingVisibility: false
        )
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: daemon.options())
        #expect(try await app.emit("onboardingIsRequired").isAccepted)
        try await presenter.wait { _ in presenter.presentable(named: "OnboardingIntro") != nil }
        let intro = try #require(presenter.presentable(named: "OnboardingIntro"))

        let hidden = try await presenter.presenter.emit(Step("introIsComplete"), from: intro)
        #expect(hidden.drop?.reason == "notVisible")
        #expect(hidden.drop?.presentable == intro)

        try presenter.presenter.report(.visible, [intro])
        try await eventually { try await presenter.presenter.emit(Step("introIsComplete"), from: intro).isAccepted }

        // A screen that is not this presenter's cannot be spoken for.
        await #expect {
            _ = try await presenter.presenter.emit(Step("introIsComplete"), from: PresentableID(999))
        } throws: { error in
            (error as? FlowBusError)?.daemonCode == "foreignPresentable"
        }
        await app.close()
        await presenter.presenter.close()
    }

    @Test func aPresenterThatMissedNavigationsResyncsFromASnapshot() async throws {
        let daemon = try Daemon(.tcp, flows: try flowsFile(tickerFlows))
        // The presenter's events connection goes through a relay that the test cuts: batches are lost.
        let relay = try TCPRelay(upstream: daemon.endpoints.events)
        var options = daemon.options()
        options.endpoints.events = relay.endpoint
        let presenter = UpdateRecorder(try await PresenterClient.connect(session: "kiosk", options: options))
        let ticker = try await StepperClient.connect(session: "kiosk", name: "ticker", options: daemon.options())
        try await presenter.wait { !$0.isEmpty }

        relay.cut()
        #expect(try await ticker.emit("tick", ["n": 1]).isAccepted)
        #expect(try await ticker.emit("tick", ["n": 2]).isAccepted)
        relay.restore()
        // Navigations go on. The presenter resyncs either because its events connection came back (`reconnected`)
        // or because the first batch it sees is beyond those it missed (`gap`), whichever it notices first.
        var n = 2
        try await eventually {
            n += 1
            let fate = try await ticker.emit("tick", ["n": .int(n)])
            #expect(fate.isAccepted)
            return presenter.updates.dropFirst().contains { update in
                if case .rebuild(let rebuild) = update { [.gap, .reconnected].contains(rebuild.reason) } else { false }
            }
        }
        try await presenter.wait { _ in
            presenter.presenter.screens.nodes.values.filter { $0.description.name == "Tick" }.count == n
        }
        let screens = presenter.presenter.screens
        let top = try #require(screens.visiblePresentables(of: "main").last.flatMap { screens[$0] })
        #expect(top.description.parameters["n"] == .int(n))
        await ticker.close()
        await presenter.presenter.close()
    }

    @Test func aPresenterRebuildsAfterFlowdRestarts() async throws {
        let directory = uniqueDirectory()
        let arguments = [
            "--flows", demoFlows, "--control", "ipc://\(directory)/control", "--events", "ipc://\(directory)/events",
        ]
        var daemon = try Daemon(arguments: arguments)
        let presenter = UpdateRecorder(try await PresenterClient.connect(session: "kiosk", options: daemon.options()))
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: daemon.options())
        #expect(try await app.emit("onboardingIsRequired").isAccepted)
        try await presenter.wait { _ in presenter.visibleNames.last == "OnboardingIntro" }

        _ = daemon.process.signal(SIGKILL)
        daemon = try Daemon(arguments: arguments)
        // The new flowd starts the session again from its root (no persistence yet); the presenter is told to
        // rebuild, and the stepper registers again by itself.
        try await presenter.wait { updates in
            updates.contains {
                if case .rebuild(let rebuild) = $0 { rebuild.reason == .daemonRestarted } else { false }
            }
        }
        #expect(presenter.visibleNames == ["app"])
        try await eventually { try await app.emit("dashboardIsRequired").isAccepted }
        try await presenter.wait { _ in presenter.visibleNames.contains("WishlistTable") }
        await app.close()
        await presenter.presenter.close()
    }

    /// A tap made while flowd is away goes through once flowd is back: flowd, restarted, holds the presenter's screens
    /// hidden until it reports them again after its snapshot, so the step waits for that report (sent before it, it
    /// was dropped `notVisible`: a newcomer's kiosk, twice).
    @Test func aTapMadeWhileFlowdIsAwayGoesThroughOnceTheScreensAreBack() async throws {
        let directory = uniqueDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let arguments = [
            "--flows", demoFlows, "--control", "ipc://\(directory)/control", "--events", "ipc://\(directory)/events",
            "--state-dir", directory + "/state",
        ]
        var daemon = try Daemon(arguments: arguments)
        let presenter = UpdateRecorder(try await PresenterClient.connect(session: "kiosk", options: daemon.options()))
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: daemon.options())
        #expect(try await app.emit("onboardingIsRequired").isAccepted)
        try await presenter.wait { _ in presenter.visibleNames.last == "OnboardingIntro" }
        let intro = try #require(presenter.presentable(named: "OnboardingIntro"))
        try await eventually { try await daemon.visibility(of: "OnboardingIntro", session: "kiosk") == "visible" }

        _ = daemon.process.signal(SIGKILL)
        let tap = Task { try await presenter.presenter.emit(Step("introIsComplete"), from: intro) }
        daemon = try Daemon(arguments: arguments)
        let fate = try await tap.value
        #expect(fate.isAccepted, "\(fate)")
        try await presenter.wait { _ in presenter.visibleNames.last == "OnboardingApiKey" }
        await app.close()
        await presenter.presenter.close()
    }
}

/// The tab a user selected belongs to the user: once reported visible it is the selected tab for the client and for
/// flowd — what a dismissal uncovers is on that tab, and flowd, restarted, rebuilds the presenter on it.
@Suite struct SelectedTabTests {
    private func selectedTab(_ screens: ScreenTree) -> Int? {
        screens.nodes.values.first { $0.description.name == "dashboard" }?.selectedTab
    }

    @Test func aTabTheUserSelectedStaysSelectedThroughADismissalAndARestart() async throws {
        let directory = uniqueDirectory("tab")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let arguments = [
            "--flows", demoFlows, "--control", "ipc://\(directory)/control", "--events", "ipc://\(directory)/events",
            "--state-dir", directory + "/state",
        ]
        var daemon = try Daemon(arguments: arguments)
        let client = try await PresenterClient.connect(session: "kiosk", options: daemon.options())
        let presenter = UpdateRecorder(client, reportingVisibility: false)
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: daemon.options())
        #expect(try await app.emit("dashboardIsRequired").isAccepted)
        try await presenter.wait { _ in client.screens.lastPresentable(named: "WatchedCollection") != nil }
        #expect(selectedTab(client.screens) == 0)

        // The user switches to Watched: the presenter shows it and reports it.
        var shown = client.screens
        let dashboard = try #require(shown.nodes.values.first { $0.description.name == "dashboard" }?.id)
        try shown.apply(.selectTab(dashboard, index: 1), for: .main)
        try client.reportVisibility(of: shown)
        try await eventually("the client selected Watched") { self.selectedTab(client.screens) == 1 }

        // A movie from Watched, then back: the screen uncovered is Watched's, reported visible.
        let collection = try #require(client.screens.lastPresentable(named: "WatchedCollection"))
        try await eventually {
            try await client.emit(Step("movieIsPicked", ["withId": 3]), from: collection).isAccepted
        }
        try await presenter.wait { _ in client.screens.lastPresentable(named: "MovieDetail") != nil }
        try client.reportVisibility(of: client.screens)
        let detail = try #require(client.screens.lastPresentable(named: "MovieDetail"))
        try client.report(.dismissed, [detail])
        try await eventually("flowd sees Watched's collection visible") {
            let screens = try await daemon.screens(session: "kiosk")
            let visibility = { (name: String) in screens.last { $0["name"] == .string(name) }?["visibility"] }
            return visibility("WatchedCollection") == "visible" && visibility("WishlistTable") != "visible"
        }

        // flowd restarts: the presenter is rebuilt on the tab its user chose.
        #expect(daemon.process.signal(SIGTERM) == 0)
        daemon = try Daemon(arguments: arguments)
        try await presenter.wait(within: .seconds(20)) { updates in
            updates.dropFirst().contains { update in
                if case .rebuild(let rebuild) = update { self.selectedTab(rebuild.screens) == 1 } else { false }
            }
        }
        await app.close()
        await client.close()
    }
}

/// flowd's view of a presenter's screens stays what the presenter shows, whatever order its reports come in: a
/// journey where a modal is dismissed and the screen under it popped in one turn, with the application reporting a
/// tree it drew before that turn (its drawing lags) after the client applied the turn.
@Suite struct VisibilityDriftTests {
    static let flows = """
        version: 1
        session:
          root: App
          stepper: { named: app }
        steps:
          home: {}
          list: {}
          settings: {}
          close: {}
        flows:
          App:
            root: { stack: main }
            on:
              home:
                - show: Home
              list:
                - show: List
              settings:
                - show: Settings
                  as: present
              close:
                - dismiss: presented
                - pop: top
        """

    /// The ids flowd holds visible in the session, and those the presenter's latest tree shows.
    private func visible(
        _ daemon: Daemon,
        _ client: PresenterClient
    ) async throws -> (flowd: Set<Int>, shown: Set<Int>) {
        let screens = try await daemon.screens(session: "kiosk")
        let flowd = Set(screens.filter { $0["visibility"] == "visible" }.compactMap { $0["id"]?.intValue })
        let shown = Set(client.screens.visiblePresentables(of: .main).map { Int($0.rawValue) })
        return (flowd, shown)
    }

    @Test func flowdsTreeMatchesTheScreenAfterEveryBatchThoughAReportLags() async throws {
        let daemon = try Daemon(flows: try flowsFile(Self.flows))
        let client = try await PresenterClient.connect(session: "kiosk", options: daemon.options())
        let presenter = UpdateRecorder(client, reportingVisibility: false)
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: daemon.options())
        var drawn: [ScreenTree] = []
        for (step, batches) in [("home", 1), ("list", 2), ("settings", 3), ("close", 4)] {
            #expect(try await app.emit(Step(step)).isAccepted, "\(step)")
            // The rebuild, then one navigation per step.
            try await presenter.wait { $0.count == batches + 1 }
            let screens = try #require(presenter.updates.last?.screens)
            if step == "close", let before = drawn.dropLast().last {
                // The application draws late: it reports the tree of two updates ago (Home under List, the modal not
                // there yet), then the one it has.
                try client.reportVisibility(of: before)
            }
            try client.reportVisibility(of: screens)
            drawn.append(screens)
            try await eventually("after \(step): flowd's visible screens are the presenter's") {
                let (flowd, shown) = try await visible(daemon, client)
                return flowd == shown
            }
        }
        let (flowd, _) = try await visible(daemon, client)
        #expect(flowd.count == 2, "the stack and Home: \(flowd)")
        await app.close()
        await client.close()
    }
}

extension ScreenTree {
    /// The most recently placed presentable with this name.
    fileprivate func lastPresentable(named name: String) -> PresentableID? {
        nodes.values.filter { $0.description.name == name }.map(\.id).max()
    }
}
