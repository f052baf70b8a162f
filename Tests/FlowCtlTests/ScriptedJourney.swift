import FlowBus
import FlowBusTesting
import Foundation

/// flowd on fresh ipc endpoints, the flowctl arguments that reach it, and client options for the same.
struct Bus {
    let daemon: DaemonProcess
    let endpoints: [String]
    let options: ClientOptions

    /// flowd running a flow file (the demo's by default).
    init(flows: String = demoFlows) throws {
        let directory = uniqueDirectory()
        endpoints = ["--control", "ipc://\(directory)/control", "--events", "ipc://\(directory)/events"]
        daemon = try DaemonProcess(["--flows", flows] + endpoints)
        _ = try daemon.readyEndpoints()
        options = ClientOptions(
            endpoints: Endpoints(control: "ipc://\(directory)/control", events: "ipc://\(directory)/events")
        )
    }

    /// Runs flowctl to its end.
    func flowctl(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try run(try builtProduct("flowctl"), arguments + endpoints)
    }

    /// Starts a flowctl that keeps running (watch, record), once it says it listens.
    func startFlowctl(_ arguments: [String], ready: String) throws -> ChildProcess {
        let process = try ChildProcess("flowctl", arguments + endpoints)
        try process.waitForOutput(containing: ready)
        return process
    }

    /// A screen's visibility in flowd's tree of `session`, once flowd has it.
    func visibility(of screen: Int, in session: String) async throws -> String? {
        let inspector = try await InspectorClient.connect(options: options)
        let tree = try? await inspector.query("tree", session: session)
        await inspector.close()
        let screens = tree?.objectValue?["screens"]?.arrayValue ?? []
        return screens.first { $0.objectValue?["id"]?.intValue == screen }?.objectValue?["visibility"]?.stringValue
    }
}

/// The same journey every time, each input sent once flowd has handled the one before, so that what flowd
/// publishes comes in one order: a presenter joins session `kiosk`, flowctl emits the dashboard as the app, the
/// presenter reports its screens, the wishlist's table opens a movie, the table is covered (hidden), and a tap
/// on the hidden table is dropped.
struct ScriptedJourney {
    let bus: Bus
    var session = "kiosk"

    /// Runs the journey; returns the presenter (still connected, so the screens stay visible).
    func run() async throws -> PresenterClient {
        let presenter = try await PresenterClient.connect(session: session, options: bus.options)
        Task {
            for await _ in presenter.updates {}
        }
        try await report(presenter, .visible, [1])
        let emitted = try bus.flowctl(["emit", "dashboardIsRequired", "--as", "app", "--session", session])
        guard emitted.status == 0 else {
            throw TestFailure("flowctl emit failed: \(emitted.status) \(emitted.output) \(emitted.errors)")
        }
        try await report(presenter, .visible, [2, 3, 5])
        guard try await presenter.emit(Step("movieIsPicked", ["withId": 7]), from: PresentableID(5)).isAccepted else {
            throw TestFailure("the table's step was not accepted")
        }
        try await report(presenter, .hidden, [5])
        try await report(presenter, .visible, [7])
        let fate = try await presenter.emit(Step("movieIsPicked", ["withId": 8]), from: PresentableID(5))
        guard fate.drop?.reason == "notVisible" else {
            throw TestFailure("the hidden table's step was not dropped as not visible: \(fate)")
        }
        return presenter
    }

    /// Reports screens and waits until flowd's tree says so.
    private func report(_ presenter: PresenterClient, _ visibility: Visibility, _ screens: [UInt32]) async throws {
        try presenter.report(visibility, screens.map { PresentableID($0) })
        for screen in screens {
            try await eventually("p\(screen) \(visibility.rawValue)") {
                try await bus.visibility(of: Int(screen), in: session) == visibility.rawValue
            }
        }
    }
}
