/// A typed socket option: ``Socket/setOption(_:_:)`` and ``Socket/option(_:)`` take one of the
/// static members (``sendHighWaterMark``, ``linger``, ``routerHandover``...), so a value always has the
/// option's type and unit.
public struct SocketOption<Value>: Sendable, CustomStringConvertible {
    let name: Int32
    /// libzmq's name for the option, for messages.
    public let description: String
    let codec: OptionCodec<Value>
    /// Whether libzmq lets the option be read back (some, like ROUTER_HANDOVER, are write-only).
    public let isReadable: Bool

    init(_ name: Int32, _ description: String, _ codec: OptionCodec<Value>, readable: Bool = true) {
        self.name = name
        self.description = description
        self.codec = codec
        self.isReadable = readable
    }
}

/// How an option's value travels through `zmq_setsockopt` / `zmq_getsockopt`.
struct OptionCodec<Value>: Sendable {
    /// Buffer size for reading the option back.
    let capacity: Int
    let encode: @Sendable (Value) throws(ZeroMQError) -> [UInt8]
    let decode: @Sendable ([UInt8]) -> Value
}

extension OptionCodec where Value == Int {
    static var int32: Self {
        Self(
            capacity: 4,
            encode: { value throws(ZeroMQError) in
                guard let narrow = Int32(exactly: value) else {
                    throw ZeroMQError(
                        .invalidArgument,
                        operation: "setOption",
                        message: "\(value) does not fit a C int"
                    )
                }
                return bytes(of: narrow)
            },
            decode: { Int(value(of: Int32.self, from: $0)) }
        )
    }
}

extension OptionCodec where Value == Bool {
    static var flag: Self {
        Self(capacity: 4, encode: { bytes(of: Int32($0 ? 1 : 0)) }, decode: { value(of: Int32.self, from: $0) != 0 })
    }
}

extension OptionCodec where Value == [UInt8] {
    static func binary(capacity: Int) -> Self {
        Self(capacity: capacity, encode: { $0 }, decode: { $0 })
    }
}

extension OptionCodec where Value == String {
    static func text(capacity: Int) -> Self {
        Self(
            capacity: capacity,
            encode: { Array($0.utf8) },
            decode: { bytes in String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self) }
        )
    }
}

extension OptionCodec where Value == Duration {
    /// A non-negative number of milliseconds in a C int.
    static var milliseconds: Self {
        Self(
            capacity: 4,
            encode: { bytes(of: $0.clampedMilliseconds) },
            decode: { .milliseconds(value(of: Int32.self, from: $0)) }
        )
    }
}

extension OptionCodec where Value == Duration? {
    /// Milliseconds in a C int, with -1 for "no limit".
    static var optionalMilliseconds: Self {
        Self(
            capacity: 4,
            encode: { bytes(of: Duration.libzmqTimeout($0)) },
            decode: { bytes in
                let milliseconds = value(of: Int32.self, from: bytes)
                return milliseconds < 0 ? nil : .milliseconds(milliseconds)
            }
        )
    }
}

extension OptionCodec where Value == Int? {
    /// A byte count in an int64_t, with -1 for "no limit".
    static var optionalSize: Self {
        Self(
            capacity: 8,
            encode: { bytes(of: Int64($0 ?? -1)) },
            decode: { bytes in
                let size = value(of: Int64.self, from: bytes)
                return size < 0 ? nil : Int(size)
            }
        )
    }
}

extension OptionCodec where Value == CurveKey {
    static var curveKey: Self {
        Self(capacity: CurveKey.byteCount, encode: { $0.bytes }, decode: { CurveKey(uncheckedBytes: $0) })
    }
}

private func bytes<T: FixedWidthInteger>(of value: T) -> [UInt8] {
    withUnsafeBytes(of: value) { Array($0) }
}

private func value<T: FixedWidthInteger>(of type: T.Type, from bytes: [UInt8]) -> T {
    var result: T = 0
    withUnsafeMutableBytes(of: &result) { destination in
        destination.copyBytes(from: bytes.prefix(MemoryLayout<T>.size))
    }
    return result
}
