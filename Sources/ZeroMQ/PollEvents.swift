internal import CZeroMQ

/// What a poll waits for, and what it found.
public struct PollEvents: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// At least one whole message can be received without blocking.
    public static let readable = PollEvents(rawValue: 1 << 0)
    /// At least one message can be sent without blocking.
    public static let writable = PollEvents(rawValue: 1 << 1)

    var libzmqValue: Int16 {
        var value: Int32 = 0
        if contains(.readable) { value |= ZMQ_POLLIN }
        if contains(.writable) { value |= ZMQ_POLLOUT }
        return Int16(value)
    }

    init(libzmqValue: Int16) {
        var events: PollEvents = []
        if Int32(libzmqValue) & ZMQ_POLLIN != 0 { events.insert(.readable) }
        if Int32(libzmqValue) & ZMQ_POLLOUT != 0 { events.insert(.writable) }
        self = events
    }
}
