import FlowCore

/// One session state the explorer reached, seen as a user would: the screens in order (each with the name a path
/// gives it), their visibility, the flows and their contributions, without the ids the engine numbered them with
/// (two paths to the same screens give the same state).
struct ExploredState {
    /// The session, in an engine of its own.
    let engine: FlowEngine
    /// The screens on screen, window roots first (presenters by name), each followed by what it holds: preorder.
    let screens: [PresentableID]
    /// Each screen's reference (its name, and which of that name it is).
    let references: [PresentableID: ScreenReference]
    /// The inspection the key was made from.
    let inspection: SessionInspection
    /// What tells states apart: the screens, flows, contributions, visibility, a waiting guard and the data.
    let key: String

    init?(_ engine: FlowEngine, session: SessionID) {
        guard let inspection = engine.inspect(session) else { return nil }
        self.engine = engine
        self.inspection = inspection
        let tree = inspection.screens
        var order: [PresentableID] = []
        for root in tree.windowRoots.entries.sorted(by: { $0.key < $1.key }) {
            order += tree.subtree(of: root.value)
        }
        screens = order
        var counts: [String: Int] = [:]
        var references: [PresentableID: ScreenReference] = [:]
        for id in order {
            guard let name = tree[id]?.description.name else { continue }
            counts[name, default: 0] += 1
            references[id] = ScreenReference(name: name, occurrence: counts[name] ?? 1)
        }
        self.references = references
        key = Self.key(of: inspection, order: order)
    }

    /// The screen a reference names, in this state.
    func screen(_ reference: ScreenReference) -> PresentableID? {
        references.first { $0.value == reference }?.key
    }

    /// The screen a reference names in a screen tree: the `occurrence`th of its name, in preorder.
    static func screen(_ reference: ScreenReference, in tree: ScreenTree) -> PresentableID? {
        var seen = 0
        for root in tree.windowRoots.entries.sorted(by: { $0.key < $1.key }) {
            for id in tree.subtree(of: root.value) where tree[id]?.description.name == reference.name {
                seen += 1
                if seen == reference.occurrence {
                    return id
                }
            }
        }
        return nil
    }

    /// The position of every screen in preorder, and of every flow in the inspection's order (parents first).
    private static func key(of inspection: SessionInspection, order: [PresentableID]) -> String {
        let tree = inspection.screens
        let screenIndex = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($0.element, $0.offset) })
        let flowIndex = Dictionary(inspection.flows.enumerated().map { ($0.element.id, $0.offset) }) { first, _ in first
        }
        let screen = { (id: PresentableID?) in id.flatMap { screenIndex[$0] }.map(String.init) ?? "-" }
        let flow = { (id: FlowID?) in id.flatMap { flowIndex[$0] }.map(String.init) ?? "-" }
        var text = ""
        for (presenter, root) in tree.windowRoots.entries.map({ ($0.key, $0.value) }).sorted(by: { $0.0 < $1.0 }) {
            text += "w\(presenter)=\(screen(root));"
        }
        for id in order {
            guard let node = tree[id] else { continue }
            let description = node.description
            text +=
                "s\(description.name)|\(description.style.rawValue)|\(node.placement.rawValue)|\(screen(node.parent))"
            text += "|\(flow(description.flow))|\(inspection.visibility(of: id).rawValue)|\(node.selectedTab ?? -1)"
            text +=
                "|\(String(decoding: JSONValue.object(description.parameters).jsonText(sortedKeys: true), as: UTF8.self));"
        }
        for info in inspection.flows {
            text += "f\(info.name)|\(flow(info.parent))|\(screen(info.root))|\(info.isReady)|\(info.stepper);"
        }
        for contribution in inspection.contributions {
            text += "c\(flow(contribution.flow))|\(screen(contribution.presentable))|\(contribution.stepper)"
            text += "|\(contribution.allowStepWhenNotPresented)|\(contribution.allowStepWhenDismissed);"
        }
        if let question = inspection.pendingGuard {
            text += "g\(question.guardName)|\(question.subject)|\(question.step);"
        }
        if !inspection.sessionData.isEmpty {
            text +=
                "d\(String(decoding: JSONValue.object(inspection.sessionData).jsonText(sortedKeys: true), as: UTF8.self));"
        }
        text += "q\(inspection.queuedWork)|\(inspection.waitingDeepLinks)"
        return text
    }

    /// Where a screen sits, by names: its presenter, then each screen from the window root down to it, with how it
    /// is placed (what identifies a modal across states).
    func position(of id: PresentableID) -> String {
        let tree = inspection.screens
        var parts: [String] = []
        var current: PresentableID? = id
        while let node = current.flatMap({ tree[$0] }) {
            parts.append("\(node.placement.rawValue) \(node.description.name)")
            current = node.parent
        }
        let presenter = tree[id]?.presenter.description ?? "?"
        return "\(presenter): " + parts.reversed().joined(separator: " > ")
    }
}
