import FlowBus
import FlowBusTesting
import Foundation
import Testing

/// `flowctl emit`, `deeplink`, `explain` and `stats` as real processes against a real flowd.
@Suite struct InjectionTests {
    @Test func emitTellsTheFateAndExitsByIt() async throws {
        let bus = try Bus()
        let presenter = try await PresenterClient.connect(session: "kiosk", options: bus.options)

        let accepted = try bus.flowctl(["emit", "dashboardIsRequired", "--as", "app"])
        #expect(accepted.status == 0)
        #expect(accepted.output == "accepted by f1 AppFlow\n")

        // No flow listens to a stepper called nobody.
        let dropped = try bus.flowctl(["emit", "dashboardIsRequired", "--as", "nobody", "--session", "kiosk", "--json"])
        #expect(dropped.status == 2)
        let fate = try JSONDecoder().decode(JSONValue.self, from: Data(dropped.output.utf8)).objectValue
        #expect(fate?["accepted"] == false)
        #expect(fate?["reason"] == "unboundStepper")
        #expect(fate?["remedy"]?.stringValue?.isEmpty == false)

        let undeclared = try bus.flowctl(["emit", "frobnicate", "--as", "app"])
        #expect(undeclared.status == 1)
        #expect(undeclared.errors.contains("no step named 'frobnicate' is declared"))

        // One rule for a session flowd does not have, whatever the subcommand: exit 1, and what to do.
        let noSession = "flowctl: flowd has no session 'nosuch' (flowctl list shows them)\n"
        for arguments in [
            ["emit", "dashboardIsRequired", "--session", "nosuch"],
            ["deeplink", "settingsAreRequired", "--session", "nosuch"],
            ["stats", "--session", "nosuch", "--once"], ["watch", "--session", "nosuch", "--count", "1"],
            ["explain", "nosuch"],
            ["record", uniqueDirectory("rec") + ".flowrec", "--session", "nosuch", "--duration", "1"],
        ] {
            let nowhere = try bus.flowctl(arguments)
            #expect(nowhere.status == 1, "\(arguments)")
            #expect(nowhere.errors == noSession, "\(arguments)")
        }

        // A deep link is a path of steps; parameters go after a colon.
        let linked = try bus.flowctl(["deeplink", "settingsAreRequired", "--session", "kiosk"])
        #expect(linked.status == 0)
        #expect(linked.output.hasPrefix("accepted by "))
        await presenter.close()
        #expect(bus.daemon.signal(SIGTERM) == 0)
    }

    @Test func twoFlowctlEmittingAsTheSameStepperAreNumberedApart() async throws {
        let bus = try Bus()
        let presenter = try await PresenterClient.connect(session: "kiosk", options: bus.options)
        // Each flowctl numbers its steps from 1 on its own connection: flowd must not take the second for a resend
        // of the first (which would answer with the first's fate).
        let first = try bus.flowctl(["emit", "dashboardIsRequired", "--as", "nobody"])
        let second = try bus.flowctl(["emit", "dashboardIsRequired", "--as", "app"])
        #expect(first.status == 2)
        #expect(second.status == 0)
        await presenter.close()
        #expect(bus.daemon.signal(SIGTERM) == 0)
    }

    @Test func explainTellsWhyTheHiddenTableDroppedItsStep() async throws {
        let bus = try Bus()
        let presenter = try await ScriptedJourney(bus: bus).run()

        let text = try bus.flowctl(["explain", "kiosk"])
        #expect(text.status == 0)
        let lines = text.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "The last 1 dropped step of session kiosk, oldest first:")
        #expect(lines[2].hasSuffix(" movieIsPicked {\"withId\":8} from screen p5 WishlistTable: dropped (notVisible)"))
        #expect(lines[3] == "  why:  its presentable p5 was hidden")
        #expect(lines[4].hasPrefix("  fix:  "))

        let json = try bus.flowctl(["explain", "--json", "--last", "5"])
        let drops = try JSONDecoder().decode(JSONValue.self, from: Data(json.output.utf8)).arrayValue ?? []
        #expect(drops.count == 1)
        let drop = drops.first?.objectValue
        #expect(drop?["reason"] == "notVisible")
        #expect(drop?["presentable"] == 5)
        #expect(drop?["step"]?.objectValue?["name"] == "movieIsPicked")
        #expect(drop?["source"] == ["presentable": 5])
        #expect(drop?["sender"] == "kiosk/main")

        let unknown = try bus.flowctl(["explain", "nosuch"])
        #expect(unknown.status == 1)
        #expect(unknown.errors == "flowctl: flowd has no session 'nosuch' (flowctl list shows them)\n")
        await presenter.close()
        #expect(bus.daemon.signal(SIGTERM) == 0)
    }

    @Test func statsReportsRatesAcceptanceAndLatencyOverAWindow() async throws {
        let bus = try Bus()
        let presenter = try await PresenterClient.connect(session: "kiosk", options: bus.options)
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: bus.options)
        let nobody = try await StepperClient.connect(session: "kiosk", name: "nobody", options: bus.options)
        let stats = try ChildProcess("flowctl", ["stats", "--once", "--json", "--interval", "1"] + bus.endpoints)
        // Steps keep coming during the window (from a thread: a busy test pool must not pause them): app's are
        // accepted, nobody's dropped.
        let emitting = Locked(true)
        let emitter = Thread {
            while emitting.value {
                try? app.post(Step("dashboardIsRequired"))
                try? nobody.post(Step("dashboardIsRequired"))
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        emitter.start()
        try stats.waitForExit()
        emitting.withLock { $0 = false }
        #expect(stats.process.terminationStatus == 0)
        let report = try JSONDecoder().decode(JSONValue.self, from: Data(stats.output.utf8)).objectValue
        let accepted = report?["accepted"]?.intValue ?? 0
        let dropped = report?["dropped"]?.objectValue?["unboundStepper"]?.intValue ?? 0
        #expect(accepted > 0)
        #expect(report?["messagesInPerSecond"]?.objectValue?["STEP"]?.doubleValue ?? 0 > 0)
        #expect(report?["stepsPerSecondByStepper"]?.objectValue?["app"] != nil)
        #expect(report?["stepsPerSecondBySession"]?.objectValue?["kiosk"] != nil)
        #expect(report?["latency"]?.objectValue?["p50"]?.intValue != nil)
        let acceptance = report?["acceptance"]?.doubleValue ?? -1
        // No flow listens to nobody: about half the steps are dropped.
        #expect(dropped > 0)
        #expect(acceptance > 0 && acceptance < 1)
        await nobody.close()
        await app.close()
        await presenter.close()
        #expect(bus.daemon.signal(SIGTERM) == 0)
    }
}
