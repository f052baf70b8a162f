import FlowBus
import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing

/// A movie app step as a Swift enum with associated values.
enum MovieStep: StepRepresentable, Codable, Equatable {
    case onboardingIsRequired
    case movieIsPicked(withId: Int)
}

/// The same step written as a newcomer might: an associated value without a label.
enum UnlabelledMovieStep: StepRepresentable, Codable, Equatable {
    case movieIsPicked(Int)
}

@Suite struct StepperClientTests {
    /// One way for mistakes: an undeclared step, parameters that do not fit, an unlabelled associated value each
    /// throw (with what to do), and the connection goes on; a reason this client does not know comes through.
    @Test func mistakesInWhatIsSentThrowAndDecisionsAreFates() async throws {
        let daemon = try Daemon()
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: daemon.options())
        await #expect {
            _ = try await app.emit("movieIsPicked", ["withId": "seven"])
        } throws: { error in
            let error = error as? FlowBusError
            return error?.code == .refused && error?.daemonCode == "invalidParameters"
                && error?.message.contains("withId") == true
        }
        await #expect {
            _ = try await app.emit(UnlabelledMovieStep.movieIsPicked(7))
        } throws: { error in
            let error = error as? FlowBusError
            return error?.code == .invalidOptions && error?.message.contains("unlabelled associated value") == true
                && error?.message.contains("label it") == true
        }
        #expect(throws: FlowBusError.self) { try app.post(UnlabelledMovieStep.movieIsPicked(7)) }
        // A mistyped step name: flowd says which one was meant.
        await #expect {
            _ = try await app.emit("dashboardIsRequred")
        } throws: { error in
            let error = error as? FlowBusError
            return error?.daemonCode == "unknownStep"
                && error?.message.contains("did you mean 'dashboardIsRequired'?") == true
        }
        #expect(app.waitingSteps == 0)
        #expect(try await app.emit("dashboardIsRequired").isAccepted)
        await app.close()

        let unknown = Fate(WireFate(accepted: false, flows: [], reason: "aReasonFromANewerFlowd", explanation: "new"))
        #expect(unknown.drop?.reason.rawValue == "aReasonFromANewerFlowd")
        #expect(unknown.drop?.reason != .notVisible)
        #expect(Fate(WireFate(accepted: false, flows: [], reason: "notVisible")).drop?.reason == .notVisible)
    }

    @Test(arguments: Transport.allCases)
    func emitReturnsEachStepsFate(transport: Transport) async throws {
        let daemon = try Daemon(transport)
        let presenter = UpdateRecorder(try await PresenterClient.connect(session: "kiosk", options: daemon.options()))
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: daemon.options())
        #expect(app.id == "kiosk/app")

        // A Swift enum case goes out as its name and parameters.
        #expect(try await app.emit(MovieStep.onboardingIsRequired) == .accepted(flows: [FlowID(1)]))
        try await presenter.wait { _ in presenter.visibleNames.contains("OnboardingIntro") }

        // A step of a stepper no flow listens to is dropped, with the reason and the remedy.
        let stranger = try await StepperClient.connect(session: "kiosk", name: "stranger", options: daemon.options())
        let drop = try #require(try await stranger.emit(MovieStep.movieIsPicked(withId: 7)).drop)
        #expect(drop.reason == "unboundStepper")
        #expect(!drop.explanation.isEmpty)
        #expect(drop.remedy != nil)
        await stranger.close()

        // A step the flows do not declare is refused by flowd, with its code.
        await #expect {
            _ = try await app.emit("noSuchStep")
        } throws: { error in
            (error as? FlowBusError)?.code == .refused && (error as? FlowBusError)?.daemonCode == "unknownStep"
        }

        // The connection still works after the refusal.
        #expect(try await app.emit("dashboardIsRequired").isAccepted)
        await app.close()
        await presenter.presenter.close()
    }

    @Test func connectingToAnAbsentDaemonFailsClearlyAfterTheWait() async throws {
        let missing = ClientOptions(
            endpoints: Endpoints(
                control: "ipc://\(uniqueDirectory())/control",
                events: "ipc://\(uniqueDirectory())/events"
            ),
            connectTimeout: .milliseconds(300)
        )
        await #expect {
            _ = try await StepperClient.connect(session: "kiosk", name: "app", options: missing)
        } throws: { error in
            guard let error = error as? FlowBusError else { return false }
            // An ipc endpoint without its socket file: the client says so.
            return error.code == .unreachable && error.message.contains("there is no socket file at")
                && error.message.contains("is flowd running")
        }
        // Options that cannot work are refused before anything is tried: an empty name, a too long id.
        await #expect(throws: FlowBusError.self) {
            _ = try await StepperClient.connect(session: "kiosk", name: "", options: missing)
        }
        var longID = missing
        longID.id = String(repeating: "x", count: 300)
        await #expect(throws: FlowBusError.self) {
            _ = try await StepperClient.connect(session: "kiosk", name: "app", options: longID)
        }
        // More outstanding steps than flowd remembers fates for; no wait between reconnections.
        var tooMany = missing
        tooMany.maxOutstandingSteps = 1000
        await #expect(throws: FlowBusError.self) {
            _ = try await StepperClient.connect(session: "kiosk", name: "app", options: tooMany)
        }
        var noWait = missing
        noWait.reconnectInterval = .zero
        await #expect(throws: FlowBusError.self) {
            _ = try await StepperClient.connect(session: "kiosk", name: "app", options: noWait)
        }
    }

    @Test func aSecondProcessCannotTakeANameInUseInTheSession() async throws {
        let daemon = try Daemon()
        let first = try await StepperClient.connect(session: "kiosk", name: "app", options: daemon.options())
        var other = daemon.options()
        other.id = "kiosk/app-copy"
        await #expect {
            _ = try await StepperClient.connect(session: "kiosk", name: "app", options: other)
        } throws: { error in
            (error as? FlowBusError)?.daemonCode == "nameTaken"
        }
        await first.close()
    }

    /// An inspector numbers what it injects on its connection, across sessions (the specification's STEP): steps
    /// into two sessions in turn, and one into a session flowd does not have, each get their fate.
    @Test func anInspectorInjectsIntoSessionsInTurn() async throws {
        let daemon = try Daemon(flows: try flowsFile(tickerFlows))
        var tickers: [StepperClient] = []
        for session in ["s0", "s1"] {
            tickers.append(try await StepperClient.connect(session: session, name: "ticker", options: daemon.options()))
        }
        let inspector = try await InspectorClient.connect(name: "ticker", options: daemon.options())
        var fates: [Fate] = []
        for (index, session) in ["s0", "s1", "nowhere", "s0", "s1", "s0"].enumerated() {
            fates.append(try await inspector.emit(Step("tick", ["n": .int(index)]), session: session))
        }
        #expect(fates.map(\.isAccepted) == [true, true, false, true, true, true])
        #expect(fates[2].drop?.reason == .unknownSession)
        await inspector.close()
        for ticker in tickers {
            await ticker.close()
        }
    }

    @Test func manyConcurrentEmittersInOneProcessEachGetTheirFate() async throws {
        let daemon = try Daemon(flows: try flowsFile(tickerFlows))
        let inspector = try await InspectorClient.connect(options: daemon.options())
        let tickers = try await withThrowingTaskGroup(of: StepperClient.self) { group in
            for index in 0..<4 {
                group.addTask {
                    try await StepperClient.connect(session: "s\(index)", name: "ticker", options: daemon.options())
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // 4 clients, 16 tasks each, 20 steps per task.
        let accepted = try await withThrowingTaskGroup(of: Int.self) { group in
            for ticker in tickers {
                for task in 0..<16 {
                    group.addTask {
                        var count = 0
                        for step in 0..<20
                        where try await ticker.emit("tick", ["n": .int(task * 100 + step)]).isAccepted {
                            count += 1
                        }
                        return count
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(accepted == 4 * 16 * 20)
        #expect(try await inspector.counter("stepsIn") == 4 * 16 * 20)
        for ticker in tickers {
            await ticker.close()
        }
    }

    @Test func theInitialStepGoesFirstThenReadyToEmitStepsIsCalled() async throws {
        let daemon = try Daemon(flows: try flowsFile(tickerFlows))
        let ready = Locked<[String]>([])
        let ticker = try await StepperClient.connect(
            session: "kiosk",
            name: "ticker",
            options: daemon.options(),
            initialStep: Step("tick", ["n": 0])
        ) { client in
            ready.withLock { $0.append(client.name) }
            _ = try? await client.emit("tick", ["n": 1])
        }
        #expect(ready.value == ["ticker"])
        let screens = try await daemon.tickNumbers(session: "kiosk")
        #expect(screens == [0, 1])
        await ticker.close()
    }

    @Test func anIdleClientHeartbeatsAndStaysRegistered() async throws {
        let daemon = try Daemon(
            flows: try flowsFile(tickerFlows),
            ["--heartbeat-interval", "50", "--heartbeat-timeout", "200"]
        )
        let ticker = try await StepperClient.connect(session: "kiosk", name: "ticker", options: daemon.options())
        let inspector = try await InspectorClient.connect(options: daemon.options())
        // Five timeouts' worth of silence from the application: the client's heartbeats keep it registered.
        try await Task.sleep(for: .seconds(1))
        #expect(try await inspector.counter("peersLost") == 0)
        #expect(try await inspector.counter("sessionsCreated") == 1)
        #expect(try await ticker.emit("tick", ["n": 1]).isAccepted)
        let registrations = try await inspector.query("registrations")
        #expect(registrations.arrayValue?.contains { $0.objectValue?["id"] == "kiosk/ticker" } == true)
        await ticker.close()
    }
}
