import FlowCore
import Yams

/// Turns a flow file's YAML into a ``FlowSpecification``, reporting every structural problem (unknown keys,
/// wrong types, missing keys) with its line and column.
struct SpecParser {
    var reader: YAMLReader

    init(file: String) {
        reader = YAMLReader(file: file)
    }

    var diagnostics: [Diagnostic] { reader.diagnostics }

    /// Parses the text; `nil` when it cannot even be read as YAML (see ``diagnostics``).
    mutating func parse(_ text: String) -> FlowSpecification? {
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else {
                reader.report(
                    .malformedYAML,
                    at: nil,
                    "the file is empty; a flow file needs version, session and flows"
                )
                return nil
            }
            root = node
        } catch let error as YamlError {
            reportYAMLError(error)
            return nil
        } catch {
            reader.report(.malformedYAML, at: nil, "the file is not YAML: \(error)")
            return nil
        }
        guard
            let top = reader.entries(
                root,
                in: "the flow file",
                allowed: ["version", "session", "steps", "sends", "flows"]
            )
        else {
            return nil
        }
        let value = { (key: String) in top.first { $0.key == key }?.value }

        if let version = value("version") {
            if let number = reader.int(version, "version", minimum: 1), number != FlowSpecification.currentVersion {
                reader.report(
                    .unsupportedVersion,
                    at: version,
                    "version \(number) is not supported; this FlowBus reads version \(FlowSpecification.currentVersion)"
                )
            }
        } else {
            reader.report(.missingKey, at: root, "the flow file needs 'version: \(FlowSpecification.currentVersion)'")
        }
        let session = value("session").flatMap { parseSession($0) }
        if value("session") == nil {
            reader.report(.missingKey, at: root, "the flow file needs 'session:' with the root flow ('root: AppFlow')")
        }
        let steps = value("steps").map { parseSteps($0) } ?? []
        let flows = value("flows").map { parseFlows($0) } ?? []
        if value("flows") == nil {
            reader.report(.missingKey, at: root, "the flow file needs 'flows:' with at least the root flow")
        }
        let sends = value("sends").map { parseSends($0) } ?? .none
        guard let session else {
            return nil
        }
        return FlowSpecification(file: reader.file, session: session, steps: steps, flows: flows, sends: sends)
    }

    private mutating func reportYAMLError(_ error: YamlError) {
        switch error {
        case .scanner(let context, let problem, let mark, let text),
            .parser(let context, let problem, let mark, let text),
            .composer(let context, let problem, let mark, let text):
            let said = YAMLProblem(
                context: context?.text,
                contextLine: context?.mark.line,
                contextColumn: context?.mark.column,
                problem: problem,
                line: mark.line,
                column: mark.column,
                text: text
            )
            let location = SourceLocation(file: reader.file, line: said.line, column: said.column)
            reader.report(.malformedYAML, at: location, said.message)
        case .duplicatedKeysInMapping(let duplicates, let context):
            let location = SourceLocation(file: reader.file, line: context.mark.line, column: context.mark.column)
            let names = duplicates.sorted().map { "'\($0)'" }.joined(separator: ", ")
            reader.report(.duplicateName, at: location, "\(names) defined more than once in the same mapping; keep one")
        case .reader(let problem, let offset, _, _):
            reader.report(.malformedYAML, at: nil, "the file cannot be read as text: \(problem) at byte \(offset ?? 0)")
        default:
            reader.report(.malformedYAML, at: nil, "malformed YAML: \(error)")
        }
    }

    /// Names of types from other languages, and what a flow file calls them.
    static let parameterTypeAliases = [
        "integer": "int", "long": "int", "number": "double", "float": "double", "boolean": "bool", "str": "string",
        "text": "string",
    ]

    // MARK: Session and steps

    private mutating func parseSession(_ node: Node) -> SessionSpec? {
        guard let entries = reader.entries(node, in: "session", allowed: ["root", "stepper", "allowStepWhenDismissed"])
        else {
            return nil
        }
        guard let rootEntry = entries.first(where: { $0.key == "root" }) else {
            reader.report(.missingKey, at: node, "session needs 'root:' naming the flow a new session starts with")
            return nil
        }
        guard let rootFlow = reader.name(rootEntry.value, "session root") else {
            return nil
        }
        let stepper = entries.first { $0.key == "stepper" }.flatMap { parseStepper($0.value) } ?? .default
        var session = SessionSpec(rootFlow: rootFlow, stepper: stepper, location: reader.location(rootEntry.value))
        if let entry = entries.first(where: { $0.key == "allowStepWhenDismissed" }) {
            session.allowStepWhenDismissed = reader.bool(entry.value, "session allowStepWhenDismissed") ?? false
        }
        return session
    }

    /// `sends: { screens: { NAME: [STEP...] }, steppers: { NAME: [STEP...] } }`.
    private mutating func parseSends(_ node: Node) -> SendsDeclaration {
        guard let entries = reader.entries(node, in: "sends", allowed: ["screens", "steppers"]) else {
            return .none
        }
        var screens: [String: SendsDeclaration.Sends] = [:]
        var steppers: [String: SendsDeclaration.Sends] = [:]
        for entry in entries {
            let kind = entry.key == "screens" ? "screen" : "stepper"
            guard let senders = reader.entries(entry.value, in: "sends \(entry.key)") else { continue }
            for sender in senders {
                guard reader.name(sender.keyNode, "a \(kind) name") != nil,
                    let items = reader.items(sender.value, in: "what \(kind) '\(sender.key)' sends")
                else { continue }
                var steps: [(name: String, location: SourceLocation)] = []
                for item in items {
                    if let name = reader.name(item, "a step \(kind) '\(sender.key)' sends") {
                        steps.append((name, reader.location(item)))
                    }
                }
                let sends = SendsDeclaration.Sends(steps: steps, location: reader.location(sender.keyNode))
                if entry.key == "screens" {
                    screens[sender.key] = sends
                } else {
                    steppers[sender.key] = sends
                }
            }
        }
        return SendsDeclaration(screens: screens, steppers: steppers)
    }

    private mutating func parseSteps(_ node: Node) -> [StepDeclaration] {
        guard let entries = reader.entries(node, in: "steps") else {
            return []
        }
        var steps: [StepDeclaration] = []
        for entry in entries {
            guard reader.name(entry.keyNode, "a step name") != nil else { continue }
            guard entry.key != Step.none.name else {
                reader.report(
                    .duplicateName,
                    at: entry.keyNode,
                    "'none' is reserved: it is the none step, which a client may send and no flow navigates"
                )
                continue
            }
            var parameters: [ParameterDeclaration] = []
            if case .mapping = entry.value, let members = reader.entries(entry.value, in: "step '\(entry.key)'") {
                for member in members {
                    // `int` is required, `int?` may be left out (or null).
                    let written = (member.value.scalar?.string).map { $0.trimmingCharacters(in: .whitespaces) }
                    let optional = written?.hasSuffix("?") == true
                    let named = written.map { optional ? String($0.dropLast()) : $0 }
                    guard let named, let type = ParameterType(rawValue: named) else {
                        let names = ParameterType.allCases.map(\.rawValue)
                        let hint =
                            named.flatMap {
                                Self.parameterTypeAliases[$0.lowercased()] ?? Suggestion.closest(to: $0, in: names)
                            }
                            .map { " (did you mean '\($0)'?)" } ?? ""
                        reader.report(
                            .wrongType,
                            at: member.value,
                            "the type of parameter '\(member.key)' must be one of \(names.joined(separator: ", "))"
                                + " (with ? after it when the parameter may be left out), not \(reader.describe(member.value))\(hint)"
                        )
                        // Declared all the same (of any type), so that its uses are not reported too.
                        parameters.append(
                            ParameterDeclaration(
                                name: member.key,
                                type: .any,
                                optional: optional,
                                location: reader.location(member.keyNode)
                            )
                        )
                        continue
                    }
                    parameters.append(
                        ParameterDeclaration(
                            name: member.key,
                            type: type,
                            optional: optional,
                            location: reader.location(member.keyNode)
                        )
                    )
                }
            } else if reader.json(entry.value) != .null {
                reader.report(
                    .wrongType,
                    at: entry.value,
                    "step '\(entry.key)' must map its parameters to types ({withId: int}), or be {} without parameters"
                )
            }
            steps.append(
                StepDeclaration(name: entry.key, parameters: parameters, location: reader.location(entry.keyNode))
            )
        }
        return steps
    }

    // MARK: Flows

    private mutating func parseFlows(_ node: Node) -> [FlowDefinition] {
        guard let entries = reader.entries(node, in: "flows") else {
            return []
        }
        var flows: [FlowDefinition] = []
        for entry in entries {
            guard reader.name(entry.keyNode, "a flow name") != nil,
                let flow = parseFlow(entry.key, entry.value, at: entry.keyNode)
            else {
                continue
            }
            flows.append(flow)
        }
        return flows
    }

    /// `deepLinks: all` (the default), `none`, or a list of the steps the flow takes from deep links.
    private mutating func parseDeepLinks(_ node: Node, flow: String) -> DeepLinkSteps {
        if case .scalar(let scalar) = node {
            switch scalar.string {
            case "all": return .all
            case "none": return .none
            default: break
            }
        }
        guard case .sequence = node, let items = reader.items(node, in: "deepLinks of flow '\(flow)'") else {
            reader.report(
                .wrongType,
                at: node,
                "deepLinks of flow '\(flow)' must be all, none, or a list of steps, not \(reader.describe(node))"
            )
            return .all
        }
        var steps: Set<String> = []
        for item in items {
            if let step = reader.name(item, "a step of deepLinks") {
                steps.insert(step)
            }
        }
        return .only(steps)
    }

    private mutating func parseFlow(_ name: String, _ node: Node, at keyNode: Node) -> FlowDefinition? {
        let context = "flow '\(name)'"
        guard
            let entries = reader.entries(
                node,
                in: context,
                allowed: ["root", "restoreParentOnEnd", "adapt", "on", "deepLinks", "mayGrow"]
            )
        else {
            return nil
        }
        let value = { (key: String) in entries.first { $0.key == key }?.value }
        var root = FlowRoot.stack(name)
        if let rootNode = value("root") {
            root = parseRoot(rootNode, flow: name) ?? root
        } else {
            reader.report(
                .missingKey,
                at: keyNode,
                "\(context) needs 'root:' ({stack: name}, {tabs: ...}, {split: ...})"
            )
        }
        let restores = value("restoreParentOnEnd").flatMap { reader.bool($0, "restoreParentOnEnd") } ?? false
        let rules = value("adapt").map { parseAdapt($0, flow: name) } ?? []
        var handlers: [StepHandler] = []
        if let on = value("on"), let steps = reader.entries(on, in: "'on' of \(context)") {
            for step in steps {
                guard reader.name(step.keyNode, "a step name") != nil else { continue }
                let actions = parseActions(step.value, flow: name, step: step.key, root: root.style)
                handlers.append(StepHandler(step: step.key, actions: actions, location: reader.location(step.keyNode)))
            }
        }
        var flow = FlowDefinition(
            name: name,
            location: reader.location(keyNode),
            root: root,
            restoresParentOnEnd: restores,
            adaptRules: rules,
            handlers: handlers
        )
        if let deepLinks = value("deepLinks") {
            flow.deepLinks = parseDeepLinks(deepLinks, flow: name)
        }
        flow.mayGrow = value("mayGrow").flatMap { reader.bool($0, "mayGrow") } ?? false
        return flow
    }

    private mutating func parseRoot(_ node: Node, flow: String) -> FlowRoot? {
        let styles = PresentableStyle.allCases.map(\.rawValue)
        guard let entries = reader.entries(node, in: "the root of flow '\(flow)'", allowed: styles + ["params"]) else {
            return nil
        }
        let chosen = entries.filter { styles.contains($0.key) }
        guard chosen.count == 1, let style = PresentableStyle(rawValue: chosen[0].key) else {
            reader.report(
                .wrongType,
                at: node,
                "the root of flow '\(flow)' needs exactly one of \(styles.joined(separator: ", ")), e.g. {stack: \(flow)}"
            )
            return nil
        }
        guard let name = reader.name(chosen[0].value, "the root's name") else {
            return nil
        }
        var parameters: JSONObject = [:]
        if let params = entries.first(where: { $0.key == "params" })?.value {
            parameters = reader.json(params)?.objectValue ?? [:]
        }
        return FlowRoot(style: style, name: name, parameters: parameters)
    }

    private mutating func parseAdapt(_ node: Node, flow: String) -> [AdaptRule] {
        guard let entries = reader.entries(node, in: "'adapt' of flow '\(flow)'") else {
            return []
        }
        var rules: [AdaptRule] = []
        for entry in entries {
            let context = "the adapt rule of '\(entry.key)' in flow '\(flow)'"
            guard let members = reader.entries(entry.value, in: context, allowed: ["requires", "guard", "else"]) else {
                continue
            }
            let value = { (key: String) in members.first { $0.key == key }?.value }
            var condition: Condition?
            switch (value("requires"), value("guard")) {
            case (let requires?, nil):
                condition = parseRequirement(requires, context: context)
            case (nil, let guardNode?):
                if let guardEntries = reader.entries(
                    guardNode,
                    in: "'guard' of \(context)",
                    allowed: ["name", "subject"]
                ),
                    let nameNode = guardEntries.first(where: { $0.key == "name" })?.value,
                    let guardName = reader.name(nameNode, "the guard's name")
                {
                    let subject = guardEntries.first { $0.key == "subject" }?.value.string ?? entry.key
                    condition = .askGuard(name: guardName, subject: subject)
                } else {
                    reader.report(.missingKey, at: guardNode, "'guard' needs 'name:' (the guard process to ask)")
                }
            default:
                reader.report(.wrongType, at: entry.value, "\(context) needs either 'requires:' or 'guard:', not both")
            }
            var otherwise: StepTemplate?
            if let elseNode = value("else"), elseNode.string != "none" {
                otherwise = parseStepTemplate(elseNode)
            }
            if let condition {
                rules.append(
                    AdaptRule(
                        step: entry.key,
                        condition: condition,
                        otherwise: otherwise,
                        location: reader.location(entry.keyNode)
                    )
                )
            }
        }
        return rules
    }

    private mutating func parseRequirement(_ node: Node, context: String) -> Condition? {
        guard
            let members = reader.entries(
                node,
                in: "'requires' of \(context)",
                allowed: ["permission", "data", "equals"]
            )
        else {
            return nil
        }
        let value = { (key: String) in members.first { $0.key == key }?.value }
        if let permission = value("permission"), value("data") == nil {
            return reader.name(permission, "the permission").map { .permission($0) }
        }
        if let data = value("data"), value("permission") == nil, let key = reader.name(data, "the data key") {
            return .data(key: key, equals: value("equals").flatMap { reader.json($0) })
        }
        reader.report(
            .wrongType,
            at: node,
            "'requires' needs either 'permission: name' or 'data: key' (with 'equals:')"
        )
        return nil
    }

    // MARK: Steppers and step templates

    mutating func parseStepper(_ node: Node) -> StepperSpec? {
        if case .scalar(let scalar) = node {
            switch scalar.string {
            case "own": return .own
            case "default": return .default
            case "none": return StepperSpec.none
            default:
                reader.report(
                    .wrongType,
                    at: node,
                    "a stepper is own, default, none, {named: id}, {one: step} or {composite: [...]}, not \(reader.describe(node))"
                )
                return nil
            }
        }
        let entries = reader.entries(node, in: "a stepper", allowed: ["named", "one", "composite"])
        guard let entries, entries.count == 1 else {
            // Unknown keys were said already (with the closest known one): one mistake, one problem.
            let unknownOnly = entries?.isEmpty == true && (node.mapping?.count ?? 0) > 0
            if case .mapping = node, !unknownOnly {
                reader.report(.wrongType, at: node, "a stepper mapping has exactly one of named, one, composite")
            }
            return nil
        }
        let entry = entries[0]
        switch entry.key {
        case "named":
            return reader.name(entry.value, "the stepper's id").map { .named($0) }
        case "one":
            return parseStepTemplate(entry.value).map { .one($0) }
        default:
            guard let items = reader.items(entry.value, in: "composite") else { return nil }
            let steppers = items.compactMap { parseStepper($0) }
            return steppers.count == items.count ? .composite(steppers) : nil
        }
    }

    mutating func parseStepTemplate(_ node: Node) -> StepTemplate? {
        if case .scalar = node {
            return reader.name(node, "a step").map {
                StepTemplate(name: $0, parameters: [], location: reader.location(node))
            }
        }
        guard let entries = reader.entries(node, in: "a step", allowed: ["step", "params"]),
            let nameNode = entries.first(where: { $0.key == "step" })?.value
        else {
            if case .mapping = node {
                reader.report(.missingKey, at: node, "a step written as a mapping needs 'step: name' (and 'params:')")
            }
            return nil
        }
        guard let name = reader.name(nameNode, "a step") else { return nil }
        let parameters = entries.first { $0.key == "params" }.map { parseParameters($0.value) } ?? []
        return StepTemplate(name: name, parameters: parameters, location: reader.location(nameNode))
    }

    mutating func parseParameters(_ node: Node) -> [(name: String, value: ValueTemplate)] {
        guard let entries = reader.entries(node, in: "params") else {
            return []
        }
        return entries.compactMap { entry in
            if case .scalar(let scalar) = entry.value, scalar.string.hasPrefix("$") {
                let rest = String(scalar.string.dropFirst())
                if rest.hasPrefix("$") {
                    return (entry.key, .literal(.string(rest)))
                }
                guard !rest.isEmpty else {
                    reader.report(.wrongType, at: entry.value, "'$' must be followed by the name of a step parameter")
                    return nil
                }
                return (entry.key, .reference(rest))
            }
            return reader.json(entry.value).map { (entry.key, .literal($0)) }
        }
    }
}
