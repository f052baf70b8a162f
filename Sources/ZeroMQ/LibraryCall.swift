internal import CZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The outcome of a libzmq call that did not fail.
enum CallOutcome {
    /// The call succeeded and returned this non-negative value.
    case done(Int32)
    /// The call would have blocked (EAGAIN): no message yet, or the high-water mark was reached.
    case wouldBlock
}

/// Runs one libzmq call, the single place where libzmq's error convention is turned into Swift.
///
/// - EINTR is retried;
/// - EAGAIN becomes ``CallOutcome/wouldBlock``;
/// - ETERM is thrown as ``ZeroMQError/Code/contextTerminated`` so loops unwind;
/// - misuse that only a bug in this module can cause (a closed socket, a bad pointer) stops the program;
/// - anything else is thrown with the function name and `zmq_strerror`.
@inline(__always)
func libzmq(_ function: StaticString, _ body: () -> Int32) throws(ZeroMQError) -> CallOutcome {
    try libzmqResult(function, body).get()
}

/// ``libzmq(_:_:)`` as a value, for calls made inside closures that cannot throw a typed error
/// (such as `withUnsafeBytes`): call `.get()` on the result outside the closure.
@inline(__always)
func libzmqResult(_ function: StaticString, _ body: () -> Int32) -> Result<CallOutcome, ZeroMQError> {
    while true {
        let result = body()
        if result >= 0 {
            return .success(.done(result))
        }
        let number = zmq_errno()
        switch number {
        case EINTR:
            continue
        case EAGAIN:
            return .success(.wouldBlock)
        case ENOTSOCK, EFAULT:
            preconditionFailure("\(function) was called on an invalid socket: \(describe(number))")
        default:
            return .failure(ZeroMQError(errorCode(for: number), operation: "\(function)", message: describe(number)))
        }
    }
}

/// Runs a libzmq call whose only expected outcome is success (would-block is a bug there).
@inline(__always)
@discardableResult
func libzmqChecked(_ function: StaticString, _ body: () -> Int32) throws(ZeroMQError) -> Int32 {
    try libzmqChecked(libzmq(function, body), function)
}

/// Turns an outcome where would-block is unexpected into a value or an error.
@inline(__always)
func libzmqChecked(_ outcome: CallOutcome, _ function: StaticString) throws(ZeroMQError) -> Int32 {
    switch outcome {
    case .done(let value):
        return value
    case .wouldBlock:
        throw ZeroMQError(.system, operation: "\(function)", message: describe(EAGAIN))
    }
}

/// libzmq's text for an error number.
func describe(_ number: Int32) -> String {
    String(cString: zmq_strerror(number))
}

private func errorCode(for number: Int32) -> ZeroMQError.Code {
    switch number {
    case ETERM: .contextTerminated
    case EHOSTUNREACH: .hostUnreachable
    case EINVAL: .invalidArgument
    case EADDRINUSE: .addressInUse
    case EADDRNOTAVAIL, ENODEV: .addressNotAvailable
    case EPROTONOSUPPORT, ENOCOMPATPROTO: .protocolNotSupported
    case ENOTSUP: .notSupported
    case EFSM: .operationNotValidInState
    case EMSGSIZE: .messageTooLarge
    case EMFILE, EMTHREAD: .tooManyOpenSockets
    default: .system
    }
}
