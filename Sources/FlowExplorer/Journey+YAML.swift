import FlowCore
import FlowJSON
import Foundation
import Yams

/// A journey file that cannot be read: where, and why.
public struct JourneyFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public let file: String
    public let line: Int
    public let message: String

    public var description: String {
        "\(file):\(line): error: \(message)"
    }
}

extension Journey {
    /// Reads a journey file (see ``Journey``); every mistake is an error with its line.
    public static func load(contentsOf file: String) throws(JourneyFileError) -> Journey {
        let text: String
        do {
            text = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            throw JourneyFileError(
                file: file,
                line: 0,
                message: "cannot read the journey: \(error.localizedDescription)"
            )
        }
        return try parse(text, file: file)
    }

    /// Reads a journey from its YAML text.
    public static func parse(_ text: String, file: String) throws(JourneyFileError) -> Journey {
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch {
            // Yams says where: "4:12: error: parser: ... in line 3, column 11" (the problem first, then its context).
            let text = "\(error)"
            let line =
                (text.firstMatch(of: /^(\d+):\d+:/) ?? text.firstMatch(of: /line (\d+)/)).flatMap { Int($0.output.1) }
                ?? 0
            let problem = text.split(separator: "\n").first.map(String.init) ?? text
            throw JourneyFileError(file: file, line: line, message: "not YAML: \(problem)")
        }
        var reader = JourneyReader(file: file)
        guard let node else { throw reader.error(nil, "the journey is empty; it needs `do:`, a list of moves") }
        return try reader.journey(node)
    }

    /// The journey as YAML, as ``load(contentsOf:)`` reads it.
    public func yaml() -> String {
        var lines = ["journey: \(Self.scalar(name))"]
        if let flows {
            lines.append("flows: \(Self.scalar(flows))")
        }
        lines.append("do:")
        for move in moves {
            lines += Self.yaml(of: move.input).enumerated().map { ($0.offset == 0 ? "  - " : "    ") + $0.element }
            var expect: [String] = []
            if let fate = move.expect.fate { expect.append("fate: \(fate)") }
            if let visible = move.expect.visible { expect.append("visible: \(Self.list(visible))") }
            if let screens = move.expect.screens { expect.append("screens: \(Self.list(screens))") }
            if let flows = move.expect.flows { expect.append("flows: \(Self.list(flows))") }
            if !expect.isEmpty {
                lines.append("    expect: { \(expect.joined(separator: ", ")) }")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func yaml(of input: ExplorationInput) -> [String] {
        let json = { (value: JSONValue) in String(decoding: value.jsonText(sortedKeys: true), as: UTF8.self) }
        let parameters = { (step: Step) in
            step.parameters.isEmpty ? [] : ["parameters: \(json(.object(step.parameters)))"]
        }
        let screen = { (key: String, screen: ScreenReference) in
            ["\(key): \(scalar(screen.name))"] + (screen.occurrence == 1 ? [] : ["occurrence: \(screen.occurrence)"])
        }
        switch input {
        case .step(let step, let source):
            let from: String =
                switch source {
                case .stepper(let name): "from: { stepper: \(scalar(name)) }"
                case .screen(let reference):
                    reference.occurrence == 1
                        ? "from: { screen: \(scalar(reference.name)) }"
                        : "from: { screen: \(scalar(reference.name)), occurrence: \(reference.occurrence) }"
                }
            return ["step: \(scalar(step.name))"] + parameters(step) + [from]
        case .deepLink(let step):
            return ["deepLink: \(scalar(step.name))"] + parameters(step)
        case .reportShown:
            return ["report: shown"]
        case .selectTab(let reference):
            return screen("selectTab", reference)
        case .dismiss(let reference):
            return screen("dismiss", reference)
        case .guardAnswer(let allowed):
            return ["guard: \(allowed)"]
        case .sessionData(let key, let value):
            return ["sessionData: { key: \(scalar(key)), value: \(json(value)) }"]
        }
    }

    private static func list(_ names: [String]) -> String {
        "[" + names.map(scalar).joined(separator: ", ") + "]"
    }

    /// A name as a YAML scalar: plain when it can be, else quoted as JSON.
    private static func scalar(_ text: String) -> String {
        let plain =
            !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || "_-./ ".contains($0) }
            && text.first?.isLetter == true && text.last != " "
        return plain ? text : String(decoding: JSONValue.string(text).jsonText(), as: UTF8.self)
    }
}

/// Reads a journey's YAML nodes, saying where what does not fit is.
private struct JourneyReader {
    let file: String

    func error(_ node: Node?, _ message: String) -> JourneyFileError {
        JourneyFileError(file: file, line: node?.mark?.line ?? 0, message: message)
    }

    func mapping(_ node: Node, _ context: String, allowed: [String]) throws(JourneyFileError) -> [String: Node] {
        guard case .mapping(let mapping) = node else {
            throw error(node, "\(context) must be a mapping")
        }
        var result: [String: Node] = [:]
        for (key, value) in mapping {
            guard let name = key.string, allowed.contains(name) else {
                throw error(
                    key,
                    "unknown key '\(key.string ?? "?")' in \(context); expected one of: \(allowed.joined(separator: ", "))"
                )
            }
            result[name] = value
        }
        return result
    }

    func string(_ node: Node?, _ context: String) throws(JourneyFileError) -> String {
        guard let node, case .scalar(let scalar) = node, !scalar.string.isEmpty else {
            throw error(node, "\(context) must be a name")
        }
        return scalar.string
    }

    func names(_ node: Node?, _ context: String) throws(JourneyFileError) -> [String]? {
        guard let node else { return nil }
        guard case .sequence(let sequence) = node else {
            throw error(node, "\(context) must be a list of screen or flow names")
        }
        var names: [String] = []
        for item in sequence {
            names.append(try string(item, "each of \(context)"))
        }
        return names
    }

    func json(_ node: Node) throws(JourneyFileError) -> JSONValue {
        switch node {
        case .scalar(let scalar):
            if scalar.style != .plain { return .string(scalar.string) }
            if let int = Int(scalar.string) { return .int(int) }
            if let double = Double(scalar.string) { return .double(double) }
            switch scalar.string {
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "null", "~": return .null
            default: return .string(scalar.string)
            }
        case .sequence(let sequence):
            var items: [JSONValue] = []
            for item in sequence {
                items.append(try json(item))
            }
            return .array(items)
        case .mapping(let mapping):
            var object: JSONObject = [:]
            for (key, value) in mapping {
                guard let name = key.string else { throw error(key, "keys must be names") }
                object[name] = try json(value)
            }
            return .object(object)
        case .alias:
            throw error(node, "aliases are not read in journeys")
        }
    }

    mutating func journey(_ node: Node) throws(JourneyFileError) -> Journey {
        let top = try mapping(node, "a journey", allowed: ["journey", "flows", "do"])
        guard let moves = top["do"], case .sequence(let list) = moves, !list.isEmpty else {
            throw error(top["do"] ?? node, "a journey needs `do:`, a list of moves (at least one)")
        }
        var read: [Journey.Move] = []
        for item in list {
            read.append(try move(item))
        }
        let name = try top["journey"].map { (node) throws(JourneyFileError) in try string(node, "`journey`") }
        let flows = try top["flows"].map { (node) throws(JourneyFileError) in try string(node, "`flows`") }
        let base = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        return Journey(name: name ?? base, file: file, flows: flows, moves: read)
    }

    private static let inputKeys = ["step", "deepLink", "dismiss", "selectTab", "guard", "sessionData", "report"]

    func move(_ node: Node) throws(JourneyFileError) -> Journey.Move {
        let entries = try mapping(
            node,
            "a move",
            allowed: Self.inputKeys + ["parameters", "from", "occurrence", "expect"]
        )
        let kinds = Self.inputKeys.filter { entries[$0] != nil }
        guard kinds.count == 1, let kind = kinds.first, let value = entries[kind] else {
            throw error(
                node,
                "a move is one of \(Self.inputKeys.joined(separator: ", ")); this one has \(kinds.isEmpty ? "none" : kinds.joined(separator: " and "))"
            )
        }
        let parameters: JSONObject
        if let given = entries["parameters"] {
            guard case .object(let object) = try json(given) else {
                throw error(given, "`parameters` must be a mapping of parameter names to values")
            }
            parameters = object
        } else {
            parameters = [:]
        }
        let occurrence =
            try entries["occurrence"].map { (node) throws(JourneyFileError) -> Int in
                guard let number = Int(node.string ?? ""), number >= 1 else {
                    throw error(node, "`occurrence` is a number from 1")
                }
                return number
            } ?? 1
        let input: ExplorationInput
        switch kind {
        case "step":
            let step = Step(try string(value, "`step`"), parameters)
            guard let from = entries["from"] else {
                throw error(node, "a step comes `from: { stepper: NAME }` or `from: { screen: NAME }`")
            }
            let source = try mapping(from, "`from`", allowed: ["stepper", "screen", "occurrence"])
            if let stepper = source["stepper"] {
                input = .step(step, from: .stepper(try string(stepper, "`stepper`")))
            } else if let screen = source["screen"] {
                let number = Int(source["occurrence"]?.string ?? "1") ?? 0
                guard number >= 1 else { throw error(source["occurrence"], "`occurrence` is a number from 1") }
                input = .step(
                    step,
                    from: .screen(ScreenReference(name: try string(screen, "`screen`"), occurrence: number))
                )
            } else {
                throw error(from, "`from` names a `stepper` or a `screen`")
            }
        case "deepLink":
            input = .deepLink(Step(try string(value, "`deepLink`"), parameters))
        case "dismiss":
            input = .dismiss(ScreenReference(name: try string(value, "`dismiss`"), occurrence: occurrence))
        case "selectTab":
            input = .selectTab(ScreenReference(name: try string(value, "`selectTab`"), occurrence: occurrence))
        case "guard":
            guard case .bool(let allowed) = try json(value) else {
                throw error(value, "`guard` is true (the guard allows the step) or false")
            }
            input = .guardAnswer(allowed: allowed)
        case "report":
            guard value.string == "shown" else { throw error(value, "`report` is `shown`") }
            input = .reportShown
        default:
            let data = try mapping(value, "`sessionData`", allowed: ["key", "value"])
            guard let value = data["value"] else { throw error(node, "`sessionData` has a `key` and a `value`") }
            input = .sessionData(key: try string(data["key"], "`key`"), value: try json(value))
        }
        var expectation = Journey.Expectation()
        if let expect = entries["expect"] {
            let given = try mapping(expect, "`expect`", allowed: ["fate", "visible", "screens", "flows"])
            expectation.fate = try given["fate"].map { (node) throws(JourneyFileError) in try string(node, "`fate`") }
            expectation.visible = try names(given["visible"], "`visible`")
            expectation.screens = try names(given["screens"], "`screens`")
            expectation.flows = try names(given["flows"], "`flows`")
        }
        return Journey.Move(input, expect: expectation, line: node.mark?.line ?? 0)
    }
}
