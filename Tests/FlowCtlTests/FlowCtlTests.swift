import FlowBus
import FlowBusTesting
import Foundation
import Testing

/// flowctl as a real process against a real flowd, with a real presenter and stepper on the bus.
@Suite struct FlowCtlTests {
    /// flowd on fresh ipc endpoints, and the flowctl arguments that reach it.
    private func daemon() throws -> (DaemonProcess, [String], ClientOptions) {
        let directory = uniqueDirectory()
        let endpoints = ["--control", "ipc://\(directory)/control", "--events", "ipc://\(directory)/events"]
        let daemon = try DaemonProcess(["--flows", demoFlows] + endpoints)
        _ = try daemon.readyEndpoints()
        let options = ClientOptions(
            endpoints: Endpoints(control: "ipc://\(directory)/control", events: "ipc://\(directory)/events")
        )
        return (daemon, endpoints, options)
    }

    /// The demo session "kiosk" on the dashboard, its screens reported visible by a presenter.
    private func dashboard(_ options: ClientOptions) async throws -> (PresenterClient, StepperClient) {
        let presenter = try await PresenterClient.connect(session: "kiosk", options: options)
        Task {
            for await update in presenter.updates {
                try? presenter.reportVisibility(of: update.screens)
            }
        }
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: options)
        #expect(try await app.emit("dashboardIsRequired").isAccepted)
        // Visible once the presenter has reported it: a step of the table is then accepted.
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let screens = presenter.screens
            if let table = screens.nodes.values.first(where: { $0.description.name == "WishlistTable" })?.id,
                screens.visiblePresentables(of: "main").contains(table),
                try await presenter.emit(Step("movieIsPicked", ["withId": 7]), from: table).isAccepted
            {
                return (presenter, app)
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestFailure("the dashboard never became visible")
    }

    @Test func treeShowsFlowsContributionsAndScreensAsTextJSONAndDot() async throws {
        let (daemon, endpoints, options) = try daemon()
        let (presenter, app) = try await dashboard(options)
        let flowctl = try builtProduct("flowctl")

        // The presenter reports MovieDetail visible (and the table under it hidden) a moment after it is pushed.
        var text = try run(flowctl, ["tree", "kiosk"] + endpoints)
        waitUntil {
            text = (try? run(flowctl, ["tree", "kiosk"] + endpoints)) ?? text
            return text.output.contains("● p7 MovieDetail")
        }
        #expect(text.status == 0)
        #expect(
            text.output == """
                session kiosk (ready)
                flows
                  f1 AppFlow — root p1, stepper app
                    f2 DashboardFlow — root p2, one(dashboardIsRequired)
                      f3 WishlistFlow — root p3, one(moviesAreRequired)
                        · p5 WishlistTable ← presentable [hidden]
                        · p7 MovieDetail ← presentable [visible]
                      f4 WatchedFlow — root p4, one(moviesAreRequired)
                        · p6 WatchedCollection ← presentable [unknown]
                screens
                  ● p1 app stack, windowRoot on main
                    ● p2 dashboard tabs, stackItem
                      ● p3 wishlist(title: Wishlist) stack, tab
                        ○ p5 WishlistTable screen, stackItem
                        ● p7 MovieDetail(movieId: 7) screen, stackItem
                      ○ p4 watched(title: Watched) stack, tab
                        ○ p6 WatchedCollection screen, stackItem

                """
        )

        let json = try run(flowctl, ["tree", "kiosk", "--format", "json"] + endpoints)
        #expect(json.status == 0)
        let tree = try JSONDecoder().decode(JSONValue.self, from: Data(json.output.utf8))
        #expect(tree.objectValue?["session"] == "kiosk")
        #expect(tree.objectValue?["flows"]?.arrayValue?.count == 4)

        let dot = try run(flowctl, ["tree", "kiosk", "--format", "dot"] + endpoints)
        #expect(dot.output.hasPrefix("digraph \"kiosk\" {"))
        #expect(dot.output.contains("\"f1\" -> \"f2\";"))

        // Without a session, the only one.
        #expect(try run(flowctl, ["tree"] + endpoints).output == text.output)

        let missing = try run(flowctl, ["tree", "nosuch"] + endpoints)
        #expect(missing.status == 1)
        #expect(missing.errors == "flowctl: flowd has no session 'nosuch' (flowctl list shows them)\n")
        await app.close()
        await presenter.close()
        #expect(daemon.signal(SIGTERM) == 0)
    }

    @Test func listShowsSessionsAndRegistrations() async throws {
        let (daemon, endpoints, options) = try daemon()
        let (presenter, app) = try await dashboard(options)
        let flowctl = try builtProduct("flowctl")

        let text = try run(flowctl, ["list"] + endpoints)
        #expect(text.status == 0)
        let lines = text.output.split(separator: "\n").map(String.init)
        // Columns as wide as their widest cell.
        #expect(lines.first == "SESSION  READY  FLOWS  PEERS  AGE  IDLE")
        #expect(lines.contains { $0.hasPrefix("kiosk    yes    4      2      ") && $0.hasSuffix("s") })
        #expect(lines.last?.hasPrefix("state: \(daemon.stateDirectory ?? "?")/flowd.db (") == true)
        #expect(lines.last?.contains("durability os): 0 snapshots, ") == true)
        #expect(lines.contains { $0.hasPrefix("kiosk/app   stepper    app   kiosk    ") })
        #expect(lines.contains { $0.hasPrefix("kiosk/main  presenter  main  kiosk    ") })
        // flowctl's own connection (an inspector) is left out, and says so; --all lists it.
        #expect(!lines.contains { $0.contains(" inspector ") }, "\(lines)")
        #expect(lines.contains("(1 inspector, flowctl's own connection among them: --all lists them)"), "\(lines)")
        let all = try run(flowctl, ["list", "--all"] + endpoints)
        #expect(all.output.split(separator: "\n").contains { $0.contains(" inspector ") }, "\(all.output)")
        // flowctl's calls come and go all day: flowd logs them at debug level only.
        #expect(!daemon.standardError.contains("role=inspector"), "\(daemon.standardError)")

        let json = try run(flowctl, ["list", "--json"] + endpoints)
        let listed = try JSONDecoder().decode(JSONValue.self, from: Data(json.output.utf8))
        let ids = listed.objectValue?["registrations"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue }
        #expect(ids?.contains("kiosk/app") == true)
        #expect(ids?.contains("kiosk/main") == true)
        await app.close()
        await presenter.close()
        #expect(daemon.signal(SIGTERM) == 0)
    }

    @Test func pingAnswersWithTheVersionAndFailsClearlyWithoutFlowd() throws {
        let (daemon, endpoints, _) = try daemon()
        let flowctl = try builtProduct("flowctl")
        let answered = try run(flowctl, ["ping", "--count", "2"] + endpoints)
        #expect(answered.status == 0)
        #expect(answered.output.hasPrefix("flowd 0.2.0 at ipc://"))
        #expect(answered.output.contains("round trips: "))
        #expect(daemon.signal(SIGTERM) == 0)

        let silent = try run(flowctl, ["ping", "--connect-timeout", "300"] + endpoints)
        #expect(silent.status == 69)
        #expect(silent.errors.contains("flowctl: flowd is not answering at ipc://"))
    }

    // Tried: an unknown subcommand, a zero count, a negative timeout, an endpoint without a scheme, an unknown tree
    // format, emit without a step, a parameter without '=', an empty stepper name, a deep link without steps, an
    // unknown event type, a zero --last, a too short stats window, a negative watch timeout.
    @Test(arguments: [
        ["frobnicate"], ["ping", "--count", "0"], ["ping", "--connect-timeout", "-5"],
        ["list", "--control", "localhost:5860"], ["tree", "kiosk", "--format", "svg"], ["emit"],
        ["emit", "login", "--param", "novalue"], ["emit", "login", "--as", ""], ["deeplink"],
        ["watch", "--type", "nosuch"], ["explain", "--last", "0"], ["stats", "--interval", "0"],
        ["watch", "--timeout", "-1"], ["deeplink", "movie:id"],
    ])
    func badArgumentsAreUsageErrors(arguments: [String]) throws {
        let result = try run(try builtProduct("flowctl"), arguments)
        #expect(result.status == 64)
        #expect(!result.errors.isEmpty)
    }
}
