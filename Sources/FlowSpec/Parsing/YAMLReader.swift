import FlowCore
import Yams

/// Reads YAML nodes into typed values, collecting a diagnostic (with line and column) for everything that
/// does not fit instead of stopping at the first.
struct YAMLReader {
    let file: String
    private(set) var diagnostics: [Diagnostic] = []

    init(file: String) {
        self.file = file
    }

    func location(_ node: Node?) -> SourceLocation {
        let mark = node?.mark
        return SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    mutating func report(_ kind: Diagnostic.Kind, at node: Node?, _ message: String) {
        diagnostics.append(Diagnostic(kind, at: location(node), message))
    }

    mutating func report(_ kind: Diagnostic.Kind, at location: SourceLocation, _ message: String) {
        diagnostics.append(Diagnostic(kind, at: location, message))
    }

    /// A mapping's entries in file order, keeping only keys in `allowed` (others are reported, with the
    /// closest allowed key as a suggestion). `nil` (reported) when the node is not a mapping.
    mutating func entries(
        _ node: Node,
        in context: String,
        allowed: [String]? = nil
    ) -> [(key: String, keyNode: Node, value: Node)]? {
        guard case .mapping(let mapping) = node else {
            report(.wrongType, at: node, "\(context) must be a mapping of keys to values, not \(describe(node))")
            return nil
        }
        var result: [(key: String, keyNode: Node, value: Node)] = []
        var seen: Set<String> = []
        for (keyNode, value) in mapping {
            guard case .scalar(let scalar) = keyNode else {
                report(.wrongType, at: keyNode, "keys of \(context) must be names, not \(describe(keyNode))")
                continue
            }
            let key = scalar.string
            if let allowed, !allowed.contains(key) {
                let hint = Suggestion.didYouMean(key, in: allowed)
                report(
                    .unknownKey,
                    at: keyNode,
                    "unknown key '\(key)' in \(context)\(hint); expected one of: \(allowed.joined(separator: ", "))"
                )
                continue
            }
            guard seen.insert(key).inserted else {
                report(.duplicateName, at: keyNode, "'\(key)' appears twice in \(context); keep one")
                continue
            }
            result.append((key, keyNode, value))
        }
        return result
    }

    /// A sequence's items (reported and `nil` when the node is not a sequence).
    mutating func items(_ node: Node, in context: String) -> [Node]? {
        guard case .sequence(let sequence) = node else {
            report(.wrongType, at: node, "\(context) must be a list, not \(describe(node))")
            return nil
        }
        return Array(sequence)
    }

    /// A name: a non-empty plain string.
    mutating func name(_ node: Node, _ what: String) -> String? {
        guard case .scalar(let scalar) = node, !scalar.string.isEmpty, scalar.string.allSatisfy(isNameCharacter)
        else {
            report(
                .wrongType,
                at: node,
                "\(what) must be a name (letters, digits, '_', '-', '.'), not \(describe(node))"
            )
            return nil
        }
        return scalar.string
    }

    /// `true` or `false`.
    mutating func bool(_ node: Node, _ what: String) -> Bool? {
        guard case .scalar(let scalar) = node, scalar.style == .plain, let value = Bool(scalar.string.lowercased())
        else {
            report(.wrongType, at: node, "\(what) must be true or false, not \(describe(node))")
            return nil
        }
        return value
    }

    /// A whole number, at least `minimum`.
    mutating func int(_ node: Node, _ what: String, minimum: Int = 0) -> Int? {
        guard case .scalar(let scalar) = node, scalar.style == .plain, let value = Int(scalar.string), value >= minimum
        else {
            report(.wrongType, at: node, "\(what) must be a whole number of at least \(minimum), not \(describe(node))")
            return nil
        }
        return value
    }

    /// Any YAML value as JSON (plain scalars resolved as YAML's core schema: null, booleans, numbers).
    mutating func json(_ node: Node) -> JSONValue? {
        switch node {
        case .scalar(let scalar):
            guard scalar.style == .plain else {
                return .string(scalar.string)
            }
            let text = scalar.string
            switch text {
            case "", "~", "null", "Null", "NULL": return .null
            case "true", "True", "TRUE": return .bool(true)
            case "false", "False", "FALSE": return .bool(false)
            default:
                if let value = Int(text) { return .int(value) }
                if let value = Double(text), value.isFinite { return .double(value) }
                return .string(text)
            }
        case .sequence(let sequence):
            var values: [JSONValue] = []
            for item in sequence {
                guard let value = json(item) else { return nil }
                values.append(value)
            }
            return .array(values)
        case .mapping:
            guard let members = entries(node, in: "a value") else { return nil }
            var object: JSONObject = [:]
            for member in members {
                guard let value = json(member.value) else { return nil }
                object[member.key] = value
            }
            return .object(object)
        case .alias:
            report(.wrongType, at: node, "anchors and aliases are not supported; write the value out")
            return nil
        }
    }

    /// A short description of a node for messages: its text, or its kind.
    func describe(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar):
            let text = scalar.string.count > 40 ? String(scalar.string.prefix(40)) + "..." : scalar.string
            return "'\(text)'"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }

    private func isNameCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == "-" || character == "."
    }
}
