import FlowCore

/// What keeps the reduction of ``FlowView`` from losing a dead end: the flows stuck in a state tried, and the probe
/// of a state not tried further.
extension Explorer {
    /// Whether some step a stepper or a screen sends in a state is taken or changes it, or something the user does
    /// leads elsewhere: what a reduced state is probed for (a dead end is not left out by the reduction).
    func isLive(_ state: Int) -> Bool {
        guard let engine = states[state].engine else { return true }
        for input in inputs(in: states[state]) where input.isStep || input.isGesture {
            var driver = SessionDriver(specification: specification, engine: engine)
            var fate: StepFate?
            do {
                fate = try driver.apply(input).fate
                _ = try driver.apply(.reportShown)
            } catch {
                continue
            }
            if fate?.isAccepted == true {
                return true
            }
            guard let after = ExploredState(driver.engine, session: SessionDriver.session) else { continue }
            if after.key != states[state].key {
                return true
            }
        }
        return false
    }

    /// The flows of a state that show something and where nothing happens: no step their steppers or screens send
    /// (nor their children's) is taken or changes the state, and no gesture on their screens leads elsewhere.
    func stuckFlows(in state: Int, transitions: ArraySlice<Transition>) -> [FlowID] {
        let inspection = states[state].inspection
        let tree = inspection.screens
        let screens = Dictionary(states[state].references.map { ($1, $0) }) { first, _ in first }
        var live: Set<FlowID> = []
        for transition in transitions where transition.to != state || transition.fate?.isAccepted == true {
            switch transition.input {
            case .step(_, .stepper(let name)):
                live.formUnion(inspection.flows.filter { $0.stepper.stepperIDs.contains(name) }.map(\.id))
                live.formUnion(inspection.contributions.filter { $0.stepper.stepperIDs.contains(name) }.map(\.flow))
            case .step(_, .screen(let reference)):
                let id = screens[reference]
                live.formUnion(inspection.contributions.filter { $0.presentable == id }.map(\.flow))
            case .selectTab(let reference), .dismiss(let reference):
                if let owner = screens[reference].flatMap({ tree[$0]?.description.flow }) {
                    live.insert(owner)
                }
            default:
                break
            }
        }
        var showing: Set<FlowID> = []
        for id in states[state].screens where inspection.visibility[id] == .visible {
            if let owner = tree[id]?.description.flow {
                showing.insert(owner)
            }
        }
        // A flow lives (and shows) through its children too: parents come before children, so children first.
        for flow in inspection.flows.reversed() {
            guard let parent = flow.parent else { continue }
            if live.contains(flow.id) {
                live.insert(parent)
            }
            if showing.contains(flow.id) {
                showing.insert(parent)
            }
        }
        return inspection.flows.map(\.id).filter { showing.contains($0) && !live.contains($0) }
    }
}
