/// A place in a flow file.
public struct SourceLocation: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The file, as it was given.
    public let file: String
    /// The line, from 1.
    public let line: Int
    /// The column, from 1.
    public let column: Int

    /// Creates a location.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }

    /// `file:line:column`, the form editors jump to.
    public var description: String { "\(file):\(line):\(column)" }
}

/// A problem found in a flow file, where it is and what to change.
public struct Diagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What kind of problem this is.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The text is not valid YAML (or not a mapping at the top).
        case malformedYAML
        /// A key that the format does not know.
        case unknownKey
        /// A value of the wrong type (a list where a mapping belongs, text where a number belongs...).
        case wrongType
        /// A required key is missing.
        case missingKey
        /// The same name is defined twice.
        case duplicateName
        /// A flow that is referenced is not defined.
        case unknownFlow
        /// A step that is used is not declared under `steps:`.
        case unknownStep
        /// A declared step that no flow handles.
        case unhandledStep
        /// A flow that the session's root flow can never start.
        case unreachableFlow
        /// A `$parameter` that the step being handled does not provide.
        case missingParameter
        /// An action that does not fit its flow (pushing in a tabs flow, `end` with contributions...).
        case invalidAction
        /// The file's `version` is not one this FlowBus reads.
        case unsupportedVersion
        /// A sender under `sends:` that no flow shows (a screen) or binds (a stepper).
        case unknownSender
    }

    /// Where the problem is.
    public let location: SourceLocation
    /// What kind of problem it is.
    public let kind: Kind
    /// What is wrong and what to change, in a sentence.
    public let message: String

    /// Creates a diagnostic.
    public init(_ kind: Kind, at location: SourceLocation, _ message: String) {
        self.kind = kind
        self.location = location
        self.message = message
    }

    /// `file:line:column: error: message`, as compilers print.
    public var description: String { "\(location): error: \(message)" }
}

/// The one error type of FlowSpec.
public struct FlowSpecError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// The file cannot be read.
        public static let unreadableFile = Code("unreadableFile")
        /// The file has problems: see ``FlowSpecError/diagnostics``.
        public static let invalidSpecification = Code("invalidSpecification")

        public var description: String { rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A summary.
    public let message: String
    /// Every problem found, in file order.
    public let diagnostics: [Diagnostic]

    /// Creates an error.
    public init(_ code: Code, _ message: String, diagnostics: [Diagnostic] = []) {
        self.code = code
        self.message = message
        self.diagnostics = diagnostics
    }

    public var description: String {
        ([message] + diagnostics.map(\.description)).joined(separator: "\n")
    }
}
