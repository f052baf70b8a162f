import FlowCore
import Testing

/// An engine nobody watches records only each step's fate; one that is watched records every inspection event.
/// The state changes alike either way.
@Suite struct InspectionEventRecordingTests {
    private func engine(recording: Bool) throws -> FlowEngine {
        var engine = FlowEngine()
        engine.recordsInspectionEvents = recording
        let flow = ScriptedFlow("Main") { _, navigator in
            let screen = navigator.makeScreen("Detail")
            navigator.push(screen)
            return .one(.contribute(screen))
        }
        _ = try engine.startSession("s", root: flow, stepper: .named("app"))
        return engine
    }

    @Test func unwatchedOnlyFatesAreRecordedAndTheSessionIsTheSame() throws {
        var quiet = try engine(recording: false)
        var watched = try engine(recording: true)
        let (quietToken, quietEffects) = quiet.receive(.one, from: .stepper("app"), session: "s")
        let (watchedToken, watchedEffects) = watched.receive(.one, from: .stepper("app"), session: "s")

        let quietKinds = quietEffects.events.map { "\($0.kind)".prefix(while: { $0 != "(" }) }
        #expect(quietKinds == ["stepFate"])
        #expect(quietEffects.fate(of: quietToken) == .accepted(flows: [FlowID(1)]))
        #expect(watchedEffects.navigations == ["Main:one"])
        #expect(watchedEffects.events.count > 2)
        #expect(watchedEffects.fate(of: watchedToken) == quietEffects.fate(of: quietToken))
        #expect(watchedEffects.batches == quietEffects.batches)
        #expect(quiet.screens(of: "s") == watched.screens(of: "s"))
    }
}
