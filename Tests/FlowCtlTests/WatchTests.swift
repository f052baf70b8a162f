import FlowBus
import FlowBusTesting
import Foundation
import Testing

/// `flowctl watch` as a real process, while a scripted journey runs on a real flowd.
@Suite struct WatchTests {
    @Test func watchShowsTheJourneyAsTextAndJSONAndFilters() async throws {
        let bus = try Bus()
        let ready = "watching flowd at"
        let text = try bus.startFlowctl(["watch", "--time", "none", "--color", "never"], ready: ready)
        let json = try bus.startFlowctl(["watch", "--json", "--type", "stepFate"], ready: ready)
        let table = try bus.startFlowctl(
            ["watch", "--time", "none", "--step", "movieIsPicked", "--presenter", "main"],
            ready: ready
        )
        let wishlist = try bus.startFlowctl(
            ["watch", "--time", "none", "--flow", "WishlistFlow", "--type", "didNavigate"],
            ready: ready
        )
        let counted = try bus.startFlowctl(["watch", "--type", "stepFate", "--count", "2"], ready: ready)
        let presenter = try await ScriptedJourney(bus: bus).run()
        // The last thing the journey does is the dropped tap; every watcher shows it once it has arrived.
        for watcher in [text, table] {
            try watcher.waitForOutput(containing: "dropped (notVisible)")
        }
        try json.waitForOutput(containing: "\"reason\":\"notVisible\"")
        try wishlist.waitForOutput(containing: "movieIsPicked {\"withId\":7}")
        try counted.waitForExit()
        #expect(counted.process.terminationStatus == 0)
        for watcher in [text, json, table, wishlist] {
            watcher.terminate(with: SIGINT)
        }
        await presenter.close()

        #expect(
            lines(text) == [
                "kiosk      session    started (root flow AppFlow)",
                "kiosk      flow       started f1 AppFlow",
                "kiosk      commands   main #1: setWindowRoot p1 app",
                "kiosk      peer       presenter main registered (kiosk/main)",
                "kiosk      visibility p1 app visible",
                "kiosk      navigate   f1 AppFlow ▸ dashboardIsRequired → start f2 (one(dashboardIsRequired))",
                "kiosk      flow       started f2 DashboardFlow in f1 AppFlow",
                "kiosk      step       dashboardIsRequired from stepper app → accepted by f1 AppFlow",
                "kiosk      navigate   f2 DashboardFlow ▸ dashboardIsRequired → start f3 (one(moviesAreRequired)), start f4 (one(moviesAreRequired))",
                "kiosk      flow       started f3 WishlistFlow in f2 DashboardFlow",
                "kiosk      flow       started f4 WatchedFlow in f2 DashboardFlow",
                "kiosk      step       dashboardIsRequired from the coordinator → accepted by f2 DashboardFlow",
                "kiosk      navigate   f3 WishlistFlow ▸ moviesAreRequired → contribute p5 (presentable)",
                "kiosk      step       moviesAreRequired from the coordinator → accepted by f3 WishlistFlow",
                "kiosk      navigate   f4 WatchedFlow ▸ moviesAreRequired → contribute p6 (presentable)",
                "kiosk      step       moviesAreRequired from the coordinator → accepted by f4 WatchedFlow",
                "kiosk      commands   main #2: push p2 dashboard onto p1 app",
                "kiosk      commands   main #3: setTabs p2 dashboard [p3 wishlist, p4 watched] selected 0",
                "kiosk      commands   main #4: push p5 WishlistTable onto p3 wishlist",
                "kiosk      commands   main #5: push p6 WatchedCollection onto p4 watched",
                "kiosk      visibility p2 dashboard visible",
                "kiosk      visibility p3 wishlist visible",
                "kiosk      visibility p5 WishlistTable visible",
                "kiosk      navigate   f3 WishlistFlow ▸ movieIsPicked {\"withId\":7} → contribute p7 (presentable)",
                // Covered by flowd's own push: hidden at once, before the presenter says anything.
                "kiosk      visibility p5 WishlistTable hidden",
                "kiosk      step       movieIsPicked {\"withId\":7} from screen p5 WishlistTable → accepted by f3 WishlistFlow",
                "kiosk      commands   main #6: push p7 MovieDetail onto p3 wishlist",
                "kiosk      visibility p7 MovieDetail visible",
                "kiosk      step       movieIsPicked {\"withId\":8} from screen p5 WishlistTable → dropped (notVisible): its presentable p5 was hidden",
            ]
        )

        let fates = try lines(json).map { try JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) }
        #expect(fates.count == 6)
        #expect(fates.allSatisfy { $0.objectValue?["kind"] == "stepFate" && $0.objectValue?["session"] == "kiosk" })
        #expect(
            fates.map { $0.objectValue?["fields"]?.objectValue?["accepted"] } == [true, true, true, true, true, false]
        )
        // A stepper's step says when it was sent: stats measures latency from it.
        #expect(fates[0].objectValue?["fields"]?.objectValue?["sentAt"]?.intValue != nil)

        #expect(
            lines(table) == [
                "kiosk      step       movieIsPicked {\"withId\":7} from screen p5 WishlistTable → accepted by f3 WishlistFlow",
                "kiosk      commands   main #6: push p7 MovieDetail onto p3 wishlist",
                "kiosk      step       movieIsPicked {\"withId\":8} from screen p5 WishlistTable → dropped (notVisible): its presentable p5 was hidden",
            ]
        )
        #expect(
            lines(wishlist) == [
                "kiosk      navigate   f3 WishlistFlow ▸ moviesAreRequired → contribute p5 (presentable)",
                "kiosk      navigate   f3 WishlistFlow ▸ movieIsPicked {\"withId\":7} → contribute p7 (presentable)",
            ]
        )
        #expect(lines(counted).count == 2)
        #expect(bus.daemon.signal(SIGTERM) == 0)
    }

    @Test func watchColoursOnlyWhenAskedOrOnATerminal() async throws {
        let bus = try Bus()
        let plain = try bus.startFlowctl(["watch", "--type", "registered"], ready: "watching")
        let colored = try bus.startFlowctl(["watch", "--type", "registered", "--color", "always"], ready: "watching")
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: bus.options)
        try plain.waitForOutput(containing: "stepper app registered")
        try colored.waitForOutput(containing: "stepper app registered")
        // Piped, auto means no colour; always colours.
        #expect(!plain.output.contains("\u{1B}["))
        #expect(colored.output.contains("\u{1B}[2m"))
        plain.terminate(with: SIGINT)
        colored.terminate(with: SIGINT)
        await app.close()
        #expect(bus.daemon.signal(SIGTERM) == 0)
    }

    @Test func aCountedWatchThatTimesOutFailsAndOneWithoutFlowdIsUnreachable() throws {
        let bus = try Bus()
        let waited = try bus.flowctl(["watch", "--type", "stepFate", "--count", "1", "--timeout", "0.3"])
        #expect(waited.status == 1)
        let timed = try bus.flowctl(["watch", "--timeout", "0.3"])
        #expect(timed.status == 0)
        #expect(bus.daemon.signal(SIGTERM) == 0)
        let away = try bus.flowctl(["watch", "--connect-timeout", "300"])
        #expect(away.status == 69)
        #expect(away.errors.contains("flowctl: flowd is not answering at ipc://"))
    }

    /// The lines a watcher wrote after its "watching..." line.
    private func lines(_ watcher: ChildProcess) -> [String] {
        watcher.output.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("watching flowd at") }
    }
}
