import FlowBus
import FlowCore
import FlowExplorer
import FlowSpec
import Foundation

/// A journey run against a live flowd, in a session of its own: the journey's steppers are stepper clients, the
/// flow file's presenters are presenter clients that report what they show (as a real presenter does), and deep
/// links and session data go through an inspector. After each move it waits until flowd and the presenters agree
/// (every screen flowd holds is drawn, what is drawn as visible is reported visible), then compares.
struct LiveJourney {
    let journey: Journey
    let specification: FlowSpecification
    let options: ClientOptions
    /// How long flowd and the presenters may take to agree after a move.
    let patience: Duration

    /// The presenters a flow file places screens for: `main`, and every one an action names.
    static func presenters(of specification: FlowSpecification) -> [String] {
        var names: Set<String> = ["main"]
        for flow in specification.flows {
            for handler in flow.handlers {
                for presentation in handler.actions.flatMap(\.presentations) {
                    if let presenter = presentation.presenter {
                        names.insert(presenter)
                    }
                }
            }
        }
        return names.sorted()
    }

    /// Runs the journey: the first move that differs, or `nil`; throws when flowd cannot be reached.
    func run() async throws -> JourneyFailure? {
        let session = "journey-\(UUID().uuidString.prefix(8).lowercased())"
        let inspector = try await InspectorClient.connect(options: options)
        var presenters: [PresenterClient] = []
        var drawing: [Task<Void, Never>] = []
        var steppers: [String: StepperClient] = [:]
        defer {
            for task in drawing {
                task.cancel()
            }
        }
        do {
            for name in Self.presenters(of: specification) {
                let presenter = try await PresenterClient.connect(session: session, name: name, options: options)
                presenters.append(presenter)
                // What it shows is reported while waiting for flowd and the presenters to agree (`settled`).
                drawing.append(Task { for await _ in presenter.updates {} })
            }
            var failure: JourneyFailure?
            if (try? await settled(presenters, inspector, session)) == nil {
                failure = JourneyFailure(
                    file: journey.file,
                    line: 0,
                    move: 0,
                    input: "the session's start",
                    diff: ["+ flowd and the presenters did not agree within \(patience)"]
                )
            }
            for (index, move) in journey.moves.enumerated() where failure == nil {
                let differences: [String]
                do {
                    let fate = try await make(move.input, presenters, inspector, &steppers, session)
                    differences = move.expect.differences(
                        fate: fate,
                        view: try await settled(presenters, inspector, session)
                    )
                } catch let error as LiveJourneyError where error.isAboutTheMove {
                    differences = ["- the move can be made", "+ \(error)"]
                } catch let error as FlowBusError where error.code == .refused {
                    differences = ["- the move can be made", "+ \(error)"]
                } catch let error as LiveJourneyError {
                    differences = ["+ \(error)"]
                }
                if !differences.isEmpty {
                    failure = JourneyFailure(
                        file: journey.file,
                        line: move.line,
                        move: index + 1,
                        input: move.input.description,
                        diff: differences
                    )
                }
            }
            await close(presenters, steppers, inspector, session)
            return failure
        } catch {
            await close(presenters, steppers, inspector, session)
            throw error
        }
    }

    private func close(
        _ presenters: [PresenterClient],
        _ steppers: [String: StepperClient],
        _ inspector: InspectorClient,
        _ session: String
    ) async {
        for presenter in presenters {
            await presenter.close()
        }
        for stepper in steppers.values {
            await stepper.close()
        }
        for link in deepLinks {
            link.cancel()
        }
        _ = try? await inspector.query("endSession", session: session)
        await inspector.close()
    }

    /// The tabs the user selected, by tab container: the index, and the tab flowd had selected then (when flowd
    /// selects another since, its choice wins).
    private final class UserTabs {
        var chosen: [PresentableID: (index: Int, flowdSelected: Int?)] = [:]

        /// What a presenter shows: flowd's screens, with the tabs the user selected.
        func shown(by presenter: PresenterClient) -> ScreenTree {
            var tree = presenter.screens
            for (container, choice) in chosen {
                guard let node = tree[container], node.selectedTab == choice.flowdSelected else {
                    chosen[container] = nil
                    continue
                }
                _ = try? tree.apply(.selectTab(container, index: choice.index), for: node.presenter)
            }
            return tree
        }
    }

    private let tabs = UserTabs()

    /// Deep links sent and perhaps still waiting for the session to be ready.
    private final class DeepLinks {
        var tasks: [Task<Fate, any Error>] = []
    }

    private let sent = DeepLinks()
    private var deepLinks: [Task<Fate, any Error>] {
        get { sent.tasks }
        nonmutating set { sent.tasks = newValue }
    }

    /// Makes one move; the step's fate (`accepted`, the drop reason, or the refusal of a step the flow file does not
    /// declare or whose parameters do not fit) when it is a step or a deep link decided now.
    private func make(
        _ input: ExplorationInput,
        _ presenters: [PresenterClient],
        _ inspector: InspectorClient,
        _ steppers: inout [String: StepperClient],
        _ session: String
    ) async throws -> String? {
        do {
            return try await send(input, presenters, inspector, &steppers, session)
        } catch let error as FlowBusError
            where error.daemonCode == "unknownStep" || error.daemonCode == "invalidParameters"
        {
            return error.daemonCode
        }
    }

    private func send(
        _ input: ExplorationInput,
        _ presenters: [PresenterClient],
        _ inspector: InspectorClient,
        _ steppers: inout [String: StepperClient],
        _ session: String
    ) async throws -> String? {
        switch input {
        case .step(let step, .stepper(let name)):
            let stepper: StepperClient
            if let connected = steppers[name] {
                stepper = connected
            } else {
                stepper = try await StepperClient.connect(session: session, name: name, options: options)
                steppers[name] = stepper
            }
            return Self.code(of: try await stepper.emit(step))
        case .step(let step, .screen(let reference)):
            let (presenter, id) = try screen(reference, presenters)
            return Self.code(of: try await presenter.emit(step, from: id))
        case .deepLink(let step):
            // Before the session is ready a deep link waits for it (as in process: no fate yet), and the next moves
            // make it so: then it is not waited for. Once ready, its fate comes in the turn.
            let tree = try await inspector.query("tree", session: session)
            guard tree.objectValue?["ready"] == true else {
                deepLinks.append(Task { try await inspector.deepLink([step], session: session) })
                return nil
            }
            return Self.code(of: try await inspector.deepLink([step], session: session))
        case .dismiss(let reference):
            let (presenter, id) = try screen(reference, presenters)
            try presenter.report(.dismissed, [id])
            return nil
        case .selectTab(let reference):
            let (presenter, id) = try screen(reference, presenters)
            let screens = presenter.screens
            guard let container = screens[id]?.parent, let index = screens[container]?.items.firstIndex(of: id) else {
                throw LiveJourneyError("\(reference) is not a tab")
            }
            tabs.chosen[container] = (index, screens[container]?.selectedTab)
            return nil
        case .sessionData(let key, let value):
            try await inspector.setSessionData(key, to: value, session: session)
            return nil
        case .reportShown:
            return nil  // The presenters report what they show after every move.
        case .guardAnswer:
            throw LiveJourneyError(
                "a guard's answer is a move of journeys run in process only (a guard process answers flowd)"
            )
        }
    }

    /// The screen a reference names: the `occurrence`th of its name, presenters in order.
    private func screen(
        _ reference: ScreenReference,
        _ presenters: [PresenterClient]
    ) throws -> (PresenterClient, PresentableID) {
        var seen = 0
        for presenter in presenters {
            let tree = presenter.screens
            for id in tree.presentables(of: PresenterID(presenter.name))
            where tree[id]?.description.name == reference.name {
                seen += 1
                if seen == reference.occurrence {
                    return (presenter, id)
                }
            }
        }
        throw LiveJourneyError("no screen \(reference) is on screen")
    }

    /// Waits until flowd and the presenters agree: the same screens, and what the presenters show reported
    /// visible to flowd; then what the session shows.
    private func settled(
        _ presenters: [PresenterClient],
        _ inspector: InspectorClient,
        _ session: String
    ) async throws -> SessionView {
        let deadline = ContinuousClock.now.advanced(by: patience)
        var lastSeen = ""
        while true {
            let tree = try await inspector.query("tree", session: session)
            var visible: [String] = []
            var screens: [String] = []
            var drawn: Set<Int> = []
            var shown: Set<Int> = []
            for presenter in presenters {
                let screensOf = tabs.shown(by: presenter)
                try presenter.reportVisibility(of: screensOf)
                let name = PresenterID(presenter.name)
                let ids = screensOf.presentables(of: name)
                let seen = screensOf.visiblePresentables(of: name)
                drawn.formUnion(ids.map { Int($0.rawValue) })
                shown.formUnion(seen.map { Int($0.rawValue) })
                screens += ids.compactMap { screensOf[$0]?.description.name }
                visible += seen.compactMap { screensOf[$0]?.description.name }
            }
            let held = tree.objectValue?["screens"]?.arrayValue ?? []
            let heldIDs = Set(held.compactMap { $0.objectValue?["id"]?.intValue })
            let reportedVisible = Set(
                held.compactMap { screen in
                    screen.objectValue?["visibility"] == "visible" ? screen.objectValue?["id"]?.intValue : nil
                }
            )
            if heldIDs == drawn && reportedVisible == shown {
                let flows = (tree.objectValue?["flows"]?.arrayValue ?? []).compactMap {
                    $0.objectValue?["name"]?.stringValue
                }
                return SessionView(visible: visible, screens: screens, flows: flows)
            }
            lastSeen =
                "flowd holds \(heldIDs.sorted()) (visible \(reportedVisible.sorted())), the presenters draw \(drawn.sorted()) (visible \(shown.sorted()))"
            guard ContinuousClock.now < deadline else {
                throw LiveJourneyError(
                    "flowd and the presenters did not agree within \(patience): \(lastSeen)",
                    aboutTheMove: false
                )
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private static func code(of fate: Fate) -> String {
        fate.drop.map { $0.reason.rawValue } ?? "accepted"
    }
}

/// Why a live journey could not go on.
struct LiveJourneyError: Error, CustomStringConvertible {
    let description: String
    /// Whether the move itself could not be made (a screen not on screen), rather than flowd not agreeing.
    let isAboutTheMove: Bool

    init(_ description: String, aboutTheMove: Bool = true) {
        self.description = description
        isAboutTheMove = aboutTheMove
    }
}
