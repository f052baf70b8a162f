/// Why a client call failed.
public struct FlowBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Hashable {
        /// flowd did not answer within the connect timeout: it is not running, or not at these endpoints.
        case unreachable
        /// flowd refused the message with an ERROR (see ``FlowBusError/daemonCode``); nothing happened.
        case refused
        /// Too many steps wait for their fate (``ClientOptions/maxOutstandingSteps``); try again later.
        case queueFull
        /// The client was closed.
        case closed
        /// The options cannot work (an empty or too long id, a bad endpoint...).
        case invalidOptions
        /// flowd did not answer in time.
        case timedOut
        /// The message is larger than flowd takes (WELCOME's `maxMessageSize`); it was not sent.
        case tooLarge
        /// The calling task was cancelled while it waited for flowd: what it asked for was sent all the same (a
        /// step is still delivered, and applied once), only its answer is not awaited.
        case cancelled
    }

    /// The kind of failure.
    public let code: Code
    /// What happened, in a sentence.
    public let message: String
    /// For ``Code/refused``: flowd's error code, such as `unknownStep` (see the FlowWire specification).
    public let daemonCode: String?

    /// A failure.
    public init(_ code: Code, _ message: String, daemonCode: String? = nil) {
        self.code = code
        self.message = message
        self.daemonCode = daemonCode
    }

    public var description: String {
        if let daemonCode {
            return "\(code.rawValue) (\(daemonCode)): \(message)"
        }
        return "\(code.rawValue): \(message)"
    }
}
