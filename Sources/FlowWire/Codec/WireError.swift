/// The one error type of FlowWire: why bytes are not a valid FlowBus message.
public struct WireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong; also the `code` of the ERROR message a peer gets back.
    public struct Code: Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        /// The first frame is not a FlowBus protocol frame.
        public static let notFlowBus = Code("notFlowBus")
        /// A FlowBus protocol version this peer does not speak.
        public static let unsupportedVersion = Code("unsupportedVersion")
        /// Fewer or more frames than a message has.
        public static let wrongFrameCount = Code("wrongFrameCount")
        /// A message type this peer does not know.
        public static let unknownType = Code("unknownType")
        /// The header frame is not a valid header.
        public static let malformedHeader = Code("malformedHeader")
        /// The body frame is not a valid body for its type.
        public static let malformedBody = Code("malformedBody")
        /// A frame is larger than the limit.
        public static let tooLarge = Code("tooLarge")

        public var description: String { rawValue }
    }

    /// What is wrong.
    public let code: Code
    /// Details, for the peer and the logs.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
