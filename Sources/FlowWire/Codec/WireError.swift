/// The one error type of FlowWire: why bytes are not a valid FlowBus message.
public struct WireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong; also the `code` of the ERROR message a peer gets back.
    public typealias Code = ErrorCode

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
