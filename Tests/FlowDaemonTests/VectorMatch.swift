import FlowCore

/// How a vector's expected JSON matches what flowd sent: objects by the members the vector names (others are
/// free), arrays element by element, values exactly; `"$any"` matches any value that is there, `"$absent"` a member
/// that is not, `"$contains:TEXT"` a string that contains TEXT, and `"$capture:NAME"` any value, kept as `$NAME`
/// (and `${NAME}` inside strings) for what follows.
enum VectorMatch {
    static func mismatch(
        _ expected: JSONValue,
        _ actual: JSONValue?,
        at path: String,
        _ captured: inout [String: JSONValue]
    ) -> String? {
        if case .string(let text) = expected {
            if text == "$absent" {
                return actual == nil ? nil : "\(path) should be absent, is \(actual!)"
            }
            guard let actual else { return "\(path) is missing" }
            if text == "$any" {
                return nil
            }
            if text.hasPrefix("$contains:") {
                let part = String(text.dropFirst("$contains:".count))
                guard case .string(let got) = actual, got.contains(part) else {
                    return "\(path) should contain \"\(part)\", is \(actual)"
                }
                return nil
            }
            if text.hasPrefix("$capture:") {
                captured[String(text.dropFirst("$capture:".count))] = actual
                return nil
            }
        }
        guard let actual else { return "\(path) is missing" }
        switch expected {
        case .object(let members):
            guard case .object(let got) = actual else { return "\(path) should be an object, is \(actual)" }
            for key in members.keys.sorted() {
                if let problem = mismatch(members[key]!, got[key], at: "\(path).\(key)", &captured) {
                    return problem
                }
            }
            return nil
        case .array(let items):
            guard case .array(let got) = actual, got.count == items.count else {
                return "\(path) should be \(expected), is \(actual)"
            }
            for (index, item) in items.enumerated() {
                if let problem = mismatch(item, got[index], at: "\(path)[\(index)]", &captured) {
                    return problem
                }
            }
            return nil
        default:
            return expected == actual ? nil : "\(path) should be \(expected), is \(actual)"
        }
    }
}
