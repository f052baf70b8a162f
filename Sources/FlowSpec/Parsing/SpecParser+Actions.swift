import FlowCore
import Yams

extension SpecParser {
    private static let actionKeys = [
        "show", "start", "tabs", "dismiss", "pop", "selectTab", "forwardToCurrentFlow", "forwardToParentFlow", "end",
    ]
    private static let showKeys = [
        "show", "as", "presenter", "params", "stepper", "allowStepWhenNotPresented", "allowStepWhenDismissed",
        "contribute",
    ]
    private static let startKeys = ["start", "as", "presenter", "params", "stepper", "allowStepWhenDismissed"]

    /// A step's actions: a list of single-purpose mappings (`- show: MovieDetail`), or `none` / `[]`.
    mutating func parseActions(_ node: Node, flow: String, step: String, root: PresentableStyle) -> [Action] {
        if case .scalar(let scalar) = node, scalar.string == "none" {
            return []
        }
        guard let items = reader.items(node, in: "the actions of '\(step)' in flow '\(flow)'") else {
            return []
        }
        return items.compactMap { parseAction($0, flow: flow, root: root) }
    }

    /// What other navigation libraries call an action, and how a flow file says it.
    static let actionAliases = [
        "push": "to push a screen, write '- show: SCREEN' (in a stack flow it is pushed; 'as: push' says so)",
        "present": "to present a screen modally, write '- show: SCREEN' with 'as: present'",
        "navigate": "to go to a screen, write '- show: SCREEN'; to a flow, '- start: FLOW'",
        "goto": "to go to a screen, write '- show: SCREEN'; to a flow, '- start: FLOW'",
        "close": "to close what is presented, write '- dismiss: presented'",
        "back": "to go back in a stack, write '- pop: top'",
        "finish": "to end this flow, write '- end: STEP' (the step goes to the parent flow)",
    ]

    private mutating func parseAction(_ node: Node, flow: String, root: PresentableStyle) -> Action? {
        guard case .mapping(let mapping) = node else {
            reader.report(
                .wrongType,
                at: node,
                "an action is a mapping such as '- show: Screen'; expected one of \(Self.actionKeys.joined(separator: ", "))"
            )
            return nil
        }
        let kinds = mapping.keys.compactMap(\.string).filter { Self.actionKeys.contains($0) }
        guard kinds.count == 1, let kind = kinds.first else {
            let firstKey = mapping.keys.first?.string ?? ""
            let expected = "an action has exactly one of \(Self.actionKeys.joined(separator: ", "))"
            let message: String
            if kinds.isEmpty, !firstKey.isEmpty {
                let hint =
                    Self.actionAliases[firstKey.lowercased()].map { "; \($0)" }
                    ?? Suggestion.closest(to: firstKey, in: Self.actionKeys).map { "; did you mean '\($0)'?" } ?? ""
                message = "'\(firstKey)' is not an action\(hint) (\(expected))"
            } else {
                message = "\(expected); found \(kinds.isEmpty ? "none" : kinds.joined(separator: " and "))"
            }
            reader.report(kinds.isEmpty ? .unknownKey : .wrongType, at: node, message)
            return nil
        }
        let location = reader.location(node)
        switch kind {
        case "show", "start":
            return parsePresentation(node, isFlow: kind == "start", root: root, inTabs: false).map {
                Action(kind: kind == "start" ? .start($0) : .show($0), location: location)
            }
        case "tabs":
            guard let entries = reader.entries(node, in: "a tabs action", allowed: ["tabs", "selected"]),
                let list = entries.first(where: { $0.key == "tabs" }).flatMap({ reader.items($0.value, in: "tabs") })
            else {
                return nil
            }
            let tabs = list.compactMap { item -> Presentation? in
                guard case .mapping(let tab) = item, let key = tab.keys.first?.string, key == "show" || key == "start"
                else {
                    reader.report(.wrongType, at: item, "each tab is '- show: Screen' or '- start: Flow'")
                    return nil
                }
                return parsePresentation(item, isFlow: key == "start", root: root, inTabs: true)
            }
            let selected = entries.first { $0.key == "selected" }.flatMap { reader.int($0.value, "selected") } ?? 0
            return tabs.count == list.count ? Action(kind: .tabs(tabs, selected: selected), location: location) : nil
        case "dismiss", "pop":
            guard let entries = reader.entries(node, in: "a \(kind) action", allowed: [kind]),
                let value = entries.first?.value.string
            else {
                return nil
            }
            if kind == "dismiss", let target = DismissTarget(rawValue: value) {
                return Action(kind: .dismiss(target), location: location)
            }
            if kind == "pop", let target = PopTarget(rawValue: value) {
                return Action(kind: .pop(target), location: location)
            }
            let choices = kind == "dismiss" ? "presented or root" : "top or root"
            reader.report(.wrongType, at: entries.first?.value, "\(kind) takes \(choices), not '\(value)'")
            return nil
        case "selectTab":
            guard let entries = reader.entries(node, in: "a selectTab action", allowed: ["selectTab"]),
                let index = reader.int(entries[0].value, "selectTab")
            else {
                return nil
            }
            return Action(kind: .selectTab(index), location: location)
        default:
            guard let entries = reader.entries(node, in: "a \(kind) action", allowed: [kind]),
                let template = parseStepTemplate(entries[0].value)
            else {
                return nil
            }
            let made: Action.Kind =
                switch kind {
                case "forwardToCurrentFlow": .forwardToCurrentFlow(template)
                case "forwardToParentFlow": .forwardToParentFlow(template)
                default: .end(template)
                }
            return Action(kind: made, location: location)
        }
    }

    private mutating func parsePresentation(
        _ node: Node,
        isFlow: Bool,
        root: PresentableStyle,
        inTabs: Bool
    ) -> Presentation? {
        let kind = isFlow ? "start" : "show"
        let allowed = (isFlow ? Self.startKeys : Self.showKeys).filter { !inTabs || ($0 != "as" && $0 != "presenter") }
        guard let entries = reader.entries(node, in: "a \(kind) action", allowed: allowed) else {
            return nil
        }
        let value = { (key: String) in entries.first { $0.key == key }?.value }
        guard let targetNode = value(kind), let target = reader.name(targetNode, isFlow ? "the flow" : "the screen")
        else {
            return nil
        }
        var placement = inTabs ? PlacementSpec.tab : defaultPlacement(for: root)
        if let asNode = value("as") {
            if let text = asNode.string, let chosen = PlacementSpec(rawValue: text), chosen != .tab {
                placement = chosen
            } else {
                reader.report(
                    .wrongType,
                    at: asNode,
                    "'as' is one of push, present, master, detail, window, not \(reader.describe(asNode))"
                )
            }
        }
        let presenter = value("presenter").flatMap { reader.name($0, "the presenter") }
        let stepper = value("stepper").flatMap { parseStepper($0) } ?? (isFlow ? .default : .own)
        let notPresented = value("allowStepWhenNotPresented").flatMap { reader.bool($0, "allowStepWhenNotPresented") }
        let dismissed = value("allowStepWhenDismissed").flatMap { reader.bool($0, "allowStepWhenDismissed") }
        let contributes = value("contribute").flatMap { reader.bool($0, "contribute") } ?? true
        return Presentation(
            target: target,
            isFlow: isFlow,
            placement: placement,
            presenter: presenter,
            parameters: value("params").map { parseParameters($0) } ?? [],
            stepper: stepper,
            allowStepWhenNotPresented: notPresented ?? false,
            allowStepWhenDismissed: dismissed ?? false,
            contributes: contributes,
            location: reader.location(targetNode)
        )
    }

    private func defaultPlacement(for root: PresentableStyle) -> PlacementSpec {
        switch root {
        case .stack: .push
        case .split: .detail
        case .tabs, .screen: .present
        }
    }
}
