import FlowBus
import FlowBusTesting
import Foundation
import Testing

/// The terminal presenter as a real process, against a real flowd, driven by a real stepper client.
@Suite struct TerminalPresenterProcessTests {
    @Test func aPresenterKilledWithSigkillComesBackOnTheSameScreens() async throws {
        let directory = uniqueDirectory()
        let endpoints = ["--control", "ipc://\(directory)/control", "--events", "ipc://\(directory)/events"]
        let daemon = try DaemonProcess(["--flows", demoFlows] + endpoints)
        _ = try daemon.readyEndpoints()
        let presenterArguments = ["presenter", "--plain", "--session", "kiosk"] + endpoints
        var presenter = try ChildProcess("flowdemo", presenterArguments)
        try presenter.waitForOutput(containing: "rebuilt (start)")

        let options = ClientOptions(
            endpoints: Endpoints(control: "ipc://\(directory)/control", events: "ipc://\(directory)/events")
        )
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: options)
        #expect(try await app.emit("dashboardIsRequired").isAccepted)
        try presenter.waitForOutput(containing: "● WishlistTable")
        var mark = presenter.mark
        presenter.send("tap WishlistTable movieIsPicked withId=7")
        try presenter.waitForOutput(containing: "● MovieDetail(movieId: 7)", after: mark)

        // Killed: flowd keeps its screens (hidden, not dismissed); a new process gets them back by snapshot.
        presenter.terminate(with: SIGKILL)
        presenter = try ChildProcess("flowdemo", presenterArguments)
        let restored = try presenter.waitForOutput(containing: "back on the same")
        #expect(restored.contains("● MovieDetail(movieId: 7)"))
        #expect(restored.contains("▦ dashboard: [Wishlist]  Watched "))

        // Once it reports them visible again, its screens' steps pass again.
        mark = presenter.mark
        try await eventually {
            presenter.send("tap MovieDetail castIsPicked withId=3")
            return (try? presenter.waitForOutput(containing: "accepted", after: mark, within: .milliseconds(200)))
                != nil
        }
        try presenter.waitForOutput(containing: "● CastDetail(castId: 3)", after: mark)
        await app.close()
        presenter.send("quit")
        try presenter.waitForExit()
        #expect(presenter.process.terminationStatus == 0)
        #expect(daemon.signal(SIGTERM) == 0)
    }
}
