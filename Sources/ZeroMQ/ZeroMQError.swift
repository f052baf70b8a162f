/// The one error type of the ZeroMQ module: what failed, in which libzmq function, and libzmq's own message.
///
/// Loops act on ``code``: ``Code/contextTerminated`` means the context is shutting down and the loop should
/// unwind; ``Code/hostUnreachable`` is a ROUTER_MANDATORY send to a peer that is not connected.
public struct ZeroMQError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable classification of the failure. New codes may be added; match the ones you handle.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Base: Sendable, Hashable {
            case contextTerminated
            case hostUnreachable
            case invalidArgument
            case addressInUse
            case addressNotAvailable
            case protocolNotSupported
            case notSupported
            case operationNotValidInState
            case messageTooLarge
            case tooManyOpenSockets
            case invalidKey
            case system
        }

        fileprivate let base: Base

        fileprivate init(_ base: Base) {
            self.base = base
        }

        /// The socket's context was shut down (libzmq's ETERM): close the socket and stop.
        public static let contextTerminated = Code(.contextTerminated)
        /// A ROUTER_MANDATORY socket was asked to send to a routing id that is not connected.
        public static let hostUnreachable = Code(.hostUnreachable)
        /// An argument libzmq rejected: a malformed endpoint, an option value out of range.
        public static let invalidArgument = Code(.invalidArgument)
        /// The endpoint is already bound by another socket or process.
        public static let addressInUse = Code(.addressInUse)
        /// The endpoint names an address this machine does not have.
        public static let addressNotAvailable = Code(.addressNotAvailable)
        /// The endpoint's transport (the part before `://`) is not supported.
        public static let protocolNotSupported = Code(.protocolNotSupported)
        /// The operation is not supported by this socket type.
        public static let notSupported = Code(.notSupported)
        /// The socket is in the wrong state for this operation (for example REQ sending twice).
        public static let operationNotValidInState = Code(.operationNotValidInState)
        /// A message or value was larger than the limit.
        public static let messageTooLarge = Code(.messageTooLarge)
        /// The context cannot open more sockets.
        public static let tooManyOpenSockets = Code(.tooManyOpenSockets)
        /// A CURVE key or Z85 text was malformed.
        public static let invalidKey = Code(.invalidKey)
        /// Any other operating-system error; the message says which.
        public static let system = Code(.system)

        public var description: String {
            switch base {
            case .contextTerminated: "context terminated"
            case .hostUnreachable: "host unreachable"
            case .invalidArgument: "invalid argument"
            case .addressInUse: "address in use"
            case .addressNotAvailable: "address not available"
            case .protocolNotSupported: "protocol not supported"
            case .notSupported: "not supported"
            case .operationNotValidInState: "operation not valid in this state"
            case .messageTooLarge: "message too large"
            case .tooManyOpenSockets: "too many open sockets"
            case .invalidKey: "invalid key"
            case .system: "system error"
            }
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The libzmq function (or wrapper operation) that failed.
    public let operation: String
    /// libzmq's description of the failure, plus any context the wrapper adds.
    public let message: String

    /// Creates an error; the wrapper makes these, callers normally only read them.
    public init(_ code: Code, operation: String, message: String) {
        self.code = code
        self.operation = operation
        self.message = message
    }

    public var description: String {
        "\(operation): \(message) (\(code))"
    }
}
