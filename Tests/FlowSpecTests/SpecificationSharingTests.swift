import FlowCore
import FlowSpec
import Testing

/// What every session of a flow file shares instead of holding a copy: the specification is one reference, a flow
/// of the file fits in the engine's value for a flow (no allocation of its own), the root stepper is made once.
@Suite struct SpecificationSharingTests {
    private let yaml = """
        version: 1
        session: { root: App, stepper: { composite: [{ named: app }, { one: start }] } }
        steps:
          start: {}
          detail: {}
        flows:
          App:
            root: { stack: app }
            on:
              start:
                - show: Home
              detail:
                - start: Detail
          Detail:
            root: { stack: detail }
            on:
              start: []
        """

    @Test func aFlowOfTheFileIsTwoWords() throws {
        let spec = try specification(yaml)
        #expect(MemoryLayout<FlowSpecification>.size == MemoryLayout<Int>.size)
        // An existential holds up to three words in place.
        #expect(MemoryLayout<SpecFlow>.size <= 3 * MemoryLayout<Int>.size)
        let flow = try #require(SpecFlow("Detail", in: spec))
        #expect(flow.definition.name == "Detail")
        #expect(flow.name == "Detail")
        #expect(SpecFlow("Nowhere", in: spec) == nil)
        #expect(spec.flow(named: "App")?.name == "App")
        #expect(spec.flow(named: "Nowhere") == nil)
    }

    @Test func theRootStepperIsMadeOnceAndEverySessionStartsWithIt() throws {
        let spec = try specification(yaml)
        #expect(spec.rootStepper == .composite([.named("app"), .one(Step("start"))]))
        // The text read is kept (set once parsed) with the rest.
        #expect(spec.source == yaml)
        #expect(spec.flows.map(\.name) == ["App", "Detail"])
        var engine = FlowEngine()
        for session in ["a", "b"] {
            let effects = try spec.startSession(SessionID(session), in: &engine)
            #expect(effects.batches.flatMap(\.commands).map(\.operation) == ["setWindowRoot", "push"])
        }
        let pushed = engine.receive(Step("detail"), from: .stepper("app"), session: "b")
        #expect(pushed.effects.fate(of: pushed.token)?.isAccepted == true)
    }
}
