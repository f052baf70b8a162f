/// Writes JSON text as UTF-8 bytes, compactly (no spaces), straight into a buffer.
///
/// The wire's hot path: every message FlowBus sends is written by it, through ``FlowJSON``.
@usableFromInline
struct JSONTextWriter {
    /// The text so far.
    @usableFromInline var bytes: [UInt8] = []
    /// Whether object members are written in key order (otherwise in the order they come).
    var sortedKeys = false

    init(sortedKeys: Bool = false, capacity: Int = 256) {
        self.sortedKeys = sortedKeys
        bytes.reserveCapacity(capacity)
    }

    mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeNull()
        case .bool(let value): write(value)
        case .int(let value): write(value)
        case .double(let value): write(value)
        case .string(let value): write(value)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            if sortedKeys {
                for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                    write(member: member.key, member.value, first: index == 0)
                }
            } else {
                var first = true
                for (key, value) in members {
                    write(member: key, value, first: first)
                    first = false
                }
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private mutating func write(member key: String, _ value: JSONValue, first: Bool) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        write(key)
        bytes.append(UInt8(ascii: ":"))
        write(value)
    }

    mutating func writeNull() {
        append("null")
    }

    mutating func write(_ value: Bool) {
        append(value ? "true" : "false")
    }

    /// Appends ASCII text as it is (a literal: no allocation, unlike an array of its bytes).
    private mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends a member's name, quoted, and its colon: `"name":`. The name is a literal with nothing to escape.
    @usableFromInline
    mutating func appendName(_ name: StaticString) {
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    @usableFromInline
    mutating func write(_ value: Int) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            // The magnitude of Int.min does not fit in an Int, it does in a UInt64.
            write(UInt64(value.magnitude))
        } else {
            write(UInt64(value))
        }
    }

    mutating func write(_ value: UInt64) {
        guard value >= 10 else {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        // Up to 20 digits, written from the last into a fixed buffer on the stack, two at a time (the wire's ids and
        // times have 13 to 16: half as many divisions of the whole number).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = 20
            while rest >= 100 {
                let pair = UInt8(truncatingIfNeeded: rest % 100)
                rest /= 100
                start -= 2
                digits[start] = UInt8(ascii: "0") + pair / 10
                digits[start + 1] = UInt8(ascii: "0") + pair % 10
            }
            while rest > 0 {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// A finite number in Swift's shortest form that reads back exactly (`1.5`, `1e-07`); JSON has no
    /// infinity or NaN, so those are written as `null` (``FlowJSON`` refuses them before they get here).
    mutating func write(_ value: Double) {
        guard value.isFinite else {
            writeNull()
            return
        }
        bytes.append(contentsOf: value.description.utf8)
    }

    /// A string, quoted, with `"`, `\` and the control characters escaped.
    mutating func write(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { text in
            // Nearly all text has nothing to escape: found 8 bytes at a time, and copied whole.
            guard Self.needsEscaping(text) else {
                bytes.append(contentsOf: text)
                return
            }
            var start = 0
            for index in text.indices {
                let byte = text[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<index]))
                start = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [
                        UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)],
                        hex[Int(byte & 0xF)],
                    ])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether `text` holds a byte to escape: a control character (below 0x20), `"` or `\`.
    static func needsEscaping(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let start = text.baseAddress else { return false }
        let raw = UnsafeRawPointer(start)
        var index = 0
        while index + 8 <= text.count {
            if wordNeedsEscaping(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                return true
            }
            index += 8
        }
        while index < text.count {
            let byte = text[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return true
            }
            index += 1
        }
        return false
    }

    /// Whether one of a word's 8 bytes is below 0x20, `"` or `\` (the bit tricks for a zero byte and a byte below
    /// n: each says exactly whether there is one, whatever the byte order).
    private static func wordNeedsEscaping(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let control = (word &- ones &* 0x20) & ~word & highs
        let quote = hasZeroByte(word ^ (ones &* UInt64(UInt8(ascii: "\""))))
        let backslash = hasZeroByte(word ^ (ones &* UInt64(UInt8(ascii: "\\"))))
        return (control | quote | backslash) != 0
    }
}
