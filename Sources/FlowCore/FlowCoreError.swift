/// The one error type of FlowCore: a ``Code`` to act on and a message that says what to change.
public struct FlowCoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable classification of the error. New codes may be added; match the ones you handle.
    public struct Code: Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// A command or report names a presentable the session does not have.
        public static let unknownPresentable = Code("unknownPresentable")
        /// A command puts something into a presentable of the wrong kind (pushing onto tabs...).
        public static let wrongContainer = Code("wrongContainer")
        /// A command places a presentable that is already on screen.
        public static let alreadyPlaced = Code("alreadyPlaced")
        /// A command presents over a presentable that already presents something modally.
        public static let alreadyPresenting = Code("alreadyPresenting")
        /// A command's index or target is outside its container.
        public static let outOfRange = Code("outOfRange")
        /// A presenter reports about a presentable shown by another presenter.
        public static let foreignPresentable = Code("foreignPresentable")
        /// The session does not exist.
        public static let unknownSession = Code("unknownSession")
        /// The session already exists.
        public static let sessionExists = Code("sessionExists")
        /// No flow of that name is registered.
        public static let unknownFlow = Code("unknownFlow")
        /// A snapshot cannot be restored (wrong version, inconsistent content).
        public static let invalidSnapshot = Code("invalidSnapshot")
        /// A limit was reached (queue length, pending deep links).
        public static let limitReached = Code("limitReached")
        /// No guard question with that id is pending.
        public static let unknownQuestion = Code("unknownQuestion")

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        public var description: String { rawValue }
    }

    /// What kind of error this is.
    public let code: Code
    /// What went wrong and what to change.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
