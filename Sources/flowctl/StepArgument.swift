import ArgumentParser
import FlowBus
import Foundation

/// A step on the command line: `NAME` or `NAME:key=value,key=value`.
struct StepArgument: ExpressibleByArgument {
    let step: Step

    init?(argument: String) {
        let parts = argument.split(separator: ":", maxSplits: 1).map(String.init)
        guard let name = parts.first, !name.isEmpty, !name.contains("=") else { return nil }
        var parameters: JSONObject = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: ",").map(String.init) {
                guard let (key, value) = Parameter.split(pair) else { return nil }
                parameters[key] = value
            }
        }
        step = Step(name, parameters)
    }
}

/// A step parameter on the command line: `key=value`.
struct Parameter: ExpressibleByArgument {
    let key: String
    let value: JSONValue

    init?(argument: String) {
        guard let (key, value) = Self.split(argument) else { return nil }
        self.key = key
        self.value = value
    }

    /// `key=value` read, or an error that says the form (for options that take parameters).
    static func parse(_ argument: String) throws -> Parameter {
        guard let parameter = Parameter(argument: argument) else {
            throw ValidationError(
                "'\(argument.prefix(64))' is not a parameter: write key=value (withId=7, name=\"Kim\", tags=[1,2])"
            )
        }
        return parameter
    }

    /// `key=value`; the value is JSON when it reads as JSON (`42`, `true`, `"007"`, `[1,2]`, `{"a":1}`), text
    /// otherwise.
    static func split(_ pair: String) -> (String, JSONValue)? {
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty else { return nil }
        if let json = try? JSONDecoder().decode(JSONValue.self, from: Data(parts[1].utf8)) {
            return (parts[0], json)
        }
        return (parts[0], .string(parts[1]))
    }
}
