import FlowBus
import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing

/// A transport the tests run over.
enum Transport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case ipc
    case tcp

    var testDescription: String { rawValue }
}

/// A real flowd for one test, with client options that reach it.
struct Daemon {
    let process: DaemonProcess
    let endpoints: Endpoints

    /// Starts flowd on `flows` (the demo by default) over `transport`, with fresh endpoints.
    init(_ transport: Transport = .ipc, flows: String = demoFlows, _ arguments: [String] = []) throws {
        let endpoints: [String] =
            switch transport {
            case .ipc:
                ["--control", "ipc://\(uniqueDirectory())/control", "--events", "ipc://\(uniqueDirectory())/events"]
            case .tcp:
                ["--control", "tcp://127.0.0.1:*", "--events", "tcp://127.0.0.1:*"]
            }
        try self.init(arguments: ["--flows", flows] + endpoints + arguments)
    }

    /// Starts flowd with exactly these arguments.
    init(arguments: [String]) throws {
        process = try DaemonProcess(arguments)
        let (control, events) = try process.readyEndpoints()
        endpoints = Endpoints(control: control[0], events: events[0])
    }

    /// Options for a client of this daemon.
    func options(connectTimeout: Duration = .seconds(10), maxOutstandingSteps: Int = 256) -> ClientOptions {
        ClientOptions(endpoints: endpoints, connectTimeout: connectTimeout, maxOutstandingSteps: maxOutstandingSteps)
    }
}

/// Writes a flows file for a test and returns its path.
func flowsFile(_ yaml: String) throws -> String {
    let path = uniqueDirectory("flows") + ".yaml"
    try yaml.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

/// Everything a presenter client received, read by a task of its own; optionally reports what each update shows.
final class UpdateRecorder: Sendable {
    let presenter: PresenterClient
    private let received = Locked<[PresenterUpdate]>([])
    private let reading: Task<Void, Never>

    init(_ presenter: PresenterClient, reportingVisibility: Bool = true) {
        self.presenter = presenter
        let received = self.received
        reading = Task { [received] in
            for await update in presenter.updates {
                received.withLock { $0.append(update) }
                if reportingVisibility {
                    try? presenter.reportVisibility(of: update.screens)
                }
            }
        }
    }

    deinit {
        reading.cancel()
    }

    var updates: [PresenterUpdate] {
        received.value
    }

    /// Waits until the updates so far satisfy `condition`.
    func wait(
        within timeout: Duration = .seconds(10),
        sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: ([PresenterUpdate]) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(updates) {
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record(
            "the presenter never got the expected updates; it got \(updates.count), showing \(visibleNames)",
            sourceLocation: sourceLocation
        )
        throw TestFailure("timed out")
    }

    /// The names of the visible screens, in the last update's screens.
    var visibleNames: [String] {
        guard let screens = updates.last?.screens else { return [] }
        return screens.visiblePresentables(of: PresenterID(presenter.name)).compactMap { screens[$0]?.description.name }
    }

    /// The last presentable on screen named `name`.
    func presentable(named name: String) -> PresentableID? {
        updates.last?.screens.nodes.values.filter { $0.description.name == name }.map(\.id).max()
    }
}

extension InspectorClient {
    /// A counter from the `stats` query.
    func counter(_ name: String) async throws -> Int {
        let stats = try await query("stats")
        return stats.objectValue?[name]?.intValue ?? -1
    }
}

extension Daemon {
    /// The screens of a session, as flowd's `tree` query gives them (by id, which is placement order).
    func screens(session: String) async throws -> [JSONObject] {
        let inspector = try await InspectorClient.connect(
            name: "probe-\(UUID().uuidString.prefix(6))",
            options: options()
        )
        let tree = try await inspector.query("tree", session: session)
        await inspector.close()
        return tree.objectValue?["screens"]?.arrayValue?.compactMap(\.objectValue) ?? []
    }

    /// The id of the last screen of a session named `name`.
    func screen(named name: String, session: String) async throws -> PresentableID? {
        let screen = try await screens(session: session).last { $0["name"] == .string(name) }
        return screen?["id"]?.intValue.map { PresentableID(UInt32($0)) }
    }

    /// The visibility flowd holds for the last screen of a session named `name` (`visible`, `hidden`, `unknown`).
    func visibility(of name: String, session: String) async throws -> String? {
        try await screens(session: session).last { $0["name"] == .string(name) }?["visibility"]?.stringValue
    }

    /// The `n` of every Tick screen of a session of the ticker flows, in placement order.
    func tickNumbers(session: String) async throws -> [Int] {
        try await screens(session: session).filter { $0["name"] == "Tick" }.compactMap {
            $0["parameters"]?.objectValue?["n"]?.intValue
        }
    }
}
