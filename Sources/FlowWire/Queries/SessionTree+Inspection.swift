import FlowCore

extension SessionTree {
    /// The tree of an engine's session, as flowd's `tree` query returns it.
    public init(_ inspection: SessionInspection) {
        self.init(
            session: inspection.session,
            ready: inspection.isReady,
            flows: inspection.flows.map {
                Flow(
                    id: $0.id,
                    name: $0.name,
                    parent: $0.parent,
                    root: $0.root,
                    stepper: $0.stepper.description,
                    ready: $0.isReady
                )
            },
            contributions: inspection.contributions.map {
                Contribution(
                    flow: $0.flow,
                    presentable: $0.presentable,
                    stepper: $0.stepper.description,
                    visibility: inspection.visibility(of: $0.presentable)
                )
            },
            screens: inspection.screens.nodes.values.sorted { $0.id < $1.id }.map {
                Screen(
                    id: $0.id,
                    name: $0.description.name,
                    parameters: $0.description.parameters,
                    style: $0.description.style,
                    presenter: $0.presenter,
                    parent: $0.parent,
                    placement: $0.placement,
                    visibility: inspection.visibility(of: $0.id)
                )
            }
        )
    }
}
