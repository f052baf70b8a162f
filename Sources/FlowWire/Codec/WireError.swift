/// The one error type of FlowWire: why bytes are not a valid FlowBus message.
public struct WireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong; also the `code` of the ERROR message a peer gets back.
    public typealias Code = ErrorCode

    /// What is wrong.
    public let code: Code
    /// Details, for the peer and the logs.
    public let message: String
    /// The `id` of the refused message, when its header frame could be read: the ERROR's `correlation`.
    public var correlation: UInt64?

    /// Creates an error.
    public init(_ code: Code, _ message: String, correlation: UInt64? = nil) {
        self.code = code
        self.message = message
        self.correlation = correlation
    }

    public var description: String { "\(code): \(message)" }
}
