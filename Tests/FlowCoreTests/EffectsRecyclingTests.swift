import FlowCore
import Testing

/// Effects given back to the engine lend their storage to the next call's: what the next call returns is exactly
/// what it would have been without them, and effects still held elsewhere are not changed.
@Suite struct EffectsRecyclingTests {
    private let flow = ScriptedFlow("App") { step, navigator in
        switch step.name {
        case "open":
            navigator.push(navigator.makeScreen("Detail", step.parameters))
            return .none
        case "back":
            navigator.pop()
            return .none
        default:
            return .none
        }
    }

    /// Tried with pushes, pops, an undeclared step (dropped) and inspection events recorded and not.
    @Test func aStepsEffectsAreTheSameWhetherEffectsWereGivenBackOrNot() throws {
        for recordsEvents in [false, true] {
            var recycling = FlowEngine()
            var plain = FlowEngine()
            recycling.recordsInspectionEvents = recordsEvents
            plain.recordsInspectionEvents = recordsEvents
            _ = try recycling.startSession("s", root: flow, stepper: .named("app"))
            _ = try plain.startSession("s", root: flow, stepper: .named("app"))
            let steps = (1...12).map { index in
                index % 5 == 0
                    ? Step("nobody") : index.isMultiple(of: 2) ? Step("back") : Step("open", ["n": .int(index)])
            }
            for step in steps {
                let given = recycling.receive(step, from: .stepper("app"), session: "s")
                let expected = plain.receive(step, from: .stepper("app"), session: "s")
                #expect(given.token == expected.token)
                #expect(given.effects == expected.effects)
                #expect(!given.effects.events.isEmpty)
                recycling.recycle(given.effects)
            }
        }
    }

    /// What giving back is for: the next call's lists are the given-back ones (their storage, their room), where a
    /// call without them makes lists of its own.
    @Test func effectsGivenBackLendTheirStorageToTheNextCall() throws {
        func started() throws -> FlowEngine {
            var engine = FlowEngine()
            _ = try engine.startSession("s", root: flow, stepper: .named("app"))
            return engine
        }
        var recycling = try started()
        var plain = try started()
        let opened = recycling.receive(Step("open", ["n": 1]), from: .stepper("app"), session: "s").effects
        _ = plain.receive(Step("open", ["n": 1]), from: .stepper("app"), session: "s")
        let room = opened.events.capacity
        let storage = opened.events.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        #expect(room >= 4, "a navigation with its inspection events recorded has several")
        recycling.recycle(consume opened)
        // A step that reaches no flow: fewer events than a navigation.
        let dropped = recycling.receive(Step("nobody"), from: .stepper("app"), session: "s").effects
        let own = plain.receive(Step("nobody"), from: .stepper("app"), session: "s").effects
        #expect(dropped.events.count == own.events.count && own.events.count < room)
        #expect(dropped.events.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == storage)
        #expect(dropped.events.capacity == room)
        #expect(own.events.capacity < room)
    }

    @Test func effectsStillHeldAreNotChangedByGivingThemBack() throws {
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: flow, stepper: .named("app"))
        let first = engine.receive(Step("open", ["n": 1]), from: .stepper("app"), session: "s").effects
        let kept = first
        engine.recycle(first)
        let second = engine.receive(Step("open", ["n": 2]), from: .stepper("app"), session: "s").effects
        #expect(kept.batches.count == 1)
        #expect(kept.batches.first?.commands.first?.placed.first?.parameters == ["n": 1])
        #expect(second.batches.first?.commands.first?.placed.first?.parameters == ["n": 2])
    }
}
