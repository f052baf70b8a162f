import FlowCore

/// A value whose wire form FlowWire reads and writes by hand rather than through `Codable`: the header and the
/// messages every step produces (STEP, DEEPLINK, STEP_ACK, VISIBILITY, COMMANDS, EVENT, HEARTBEAT). Generic
/// `Codable` decoding costs a runtime type lookup per container; on the hot path that was most of the time.
///
/// The form is the one the specification gives, the same as the type's `Codable` form (the tests hold them
/// together).
public protocol WireRepresentable {
    /// Reads the value from its wire form; `path` names it in errors (`commands[2].presentable`).
    init(wire value: JSONValue, at path: String) throws(WireFieldError)
    /// The value's wire form.
    var wireValue: JSONValue { get }
}

/// Why a message's JSON does not fit its type, naming the field: `missing "step.name"`.
public struct WireFieldError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, with the field's path.
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
