/// Writes JSON text as UTF-8 bytes, compactly (no spaces), straight into a buffer.
///
/// The wire's hot path: every message FlowBus sends is written by it, through ``FlowJSON``. The buffer is kept
/// longer than the text, zeros beyond it, so that a piece of text (a name, a string, a number) is copied in with
/// one check of the room left and one of the buffer's uniqueness, not an `append` of each byte or a generic
/// `append(contentsOf:)` (which cost a step ~130 instructions a member name).
@usableFromInline
struct JSONTextWriter {
    /// The text is the first ``count`` bytes; the rest is room, zeros.
    @usableFromInline var room: [UInt8]
    /// How many bytes of text have been written.
    @usableFromInline var count = 0
    /// Whether object members are written in key order (otherwise in the order they come).
    var sortedKeys = false

    init(sortedKeys: Bool = false, capacity: Int = 256) {
        self.sortedKeys = sortedKeys
        room = [UInt8](repeating: 0, count: capacity)
    }

    /// A writer that goes on at the end of `text` (taken from it: give it back with ``giveBack(to:)``).
    init(continuing text: inout [UInt8], sortedKeys: Bool = false) {
        self.sortedKeys = sortedKeys
        room = []
        swap(&room, &text)
        count = room.count
    }

    /// The text written, handed over (the writer is left empty).
    mutating func takeText() -> [UInt8] {
        room.removeLast(room.count - count)
        count = 0
        var text: [UInt8] = []
        swap(&text, &room)
        return text
    }

    /// Hands the text back to the variable it was taken from (``init(continuing:sortedKeys:)``).
    mutating func giveBack(to text: inout [UInt8]) {
        text = takeText()
    }

    /// Appends one byte.
    @inlinable
    mutating func append(_ byte: UInt8) {
        if count == room.count { makeRoom(for: 1) }
        room[count] = byte
        count += 1
    }

    /// Appends bytes as they are.
    @usableFromInline
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        let length = bytes.count
        guard length > 0, let source = bytes.baseAddress else { return }
        if count + length > room.count { makeRoom(for: length) }
        let start = count
        room.withUnsafeMutableBufferPointer { room in
            (room.baseAddress! + start).update(from: source, count: length)
        }
        count += length
    }

    /// Appends JSON text as it is (a fragment written before).
    mutating func append(text: [UInt8]) {
        text.withUnsafeBufferPointer { append($0) }
    }

    /// Grows the room so that `length` more bytes fit, by at least 256: the array's own capacity grows
    /// geometrically, and text appended to a large one (a journal's group) zeroes only the next bytes, not as
    /// many again as it holds.
    @usableFromInline
    mutating func makeRoom(for length: Int) {
        room.append(contentsOf: repeatElement(0, count: max(length, 256)))
    }

    mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeNull()
        case .bool(let value): write(value)
        case .int(let value): write(value)
        case .double(let value): write(value)
        case .string(let value): write(value)
        case .array(let elements):
            append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { append(UInt8(ascii: ",")) }
                write(element)
            }
            append(UInt8(ascii: "]"))
        case .object(let members):
            append(UInt8(ascii: "{"))
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
            append(UInt8(ascii: "}"))
        }
    }

    private mutating func write(member key: String, _ value: JSONValue, first: Bool) {
        if !first { append(UInt8(ascii: ",")) }
        write(key)
        append(UInt8(ascii: ":"))
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
        literal.withUTF8Buffer { append($0) }
    }

    /// Appends a member's name, quoted, and its colon: `"name":`. The name is a literal with nothing to escape.
    @usableFromInline
    mutating func appendName(_ name: StaticString) {
        let length = name.utf8CodeUnitCount
        if count + length + 3 > room.count { makeRoom(for: length + 3) }
        let start = count
        room.withUnsafeMutableBufferPointer { room in
            let text = room.baseAddress! + start
            text[0] = UInt8(ascii: "\"")
            (text + 1).update(from: name.utf8Start, count: length)
            text[length + 1] = UInt8(ascii: "\"")
            text[length + 2] = UInt8(ascii: ":")
        }
        count += length + 3
    }

    mutating func write(_ value: Int) {
        if value < 0 {
            append(UInt8(ascii: "-"))
            // The magnitude of Int.min does not fit in an Int, it does in a UInt64.
            write(UInt64(value.magnitude))
        } else {
            write(UInt64(value))
        }
    }

    mutating func write(_ value: UInt64) {
        guard value >= 10 else {
            append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        // Up to 20 digits, written from the last into a fixed buffer on the stack.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = 20
            while rest > 0 {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            append(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// A finite number in Swift's shortest form that reads back exactly (`1.5`, `1e-07`); JSON has no
    /// infinity or NaN, so those are written as `null` (``FlowJSON`` refuses them before they get here).
    mutating func write(_ value: Double) {
        guard value.isFinite else {
            writeNull()
            return
        }
        var text = value.description
        text.withUTF8 { append($0) }
    }

    /// A string, quoted, with `"`, `\` and the control characters escaped.
    mutating func write(_ value: String) {
        append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { text in
            var start = 0
            for index in text.indices {
                let byte = text[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                append(UnsafeBufferPointer(rebasing: text[start..<index]))
                start = index + 1
                append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): append(byte)
                case UInt8(ascii: "\n"): append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): append(UInt8(ascii: "t"))
                case 0x08: append(UInt8(ascii: "b"))
                case 0x0C: append(UInt8(ascii: "f"))
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    append(UInt8(ascii: "u"))
                    append(UInt8(ascii: "0"))
                    append(UInt8(ascii: "0"))
                    append(hex[Int(byte >> 4)])
                    append(hex[Int(byte & 0xF)])
                }
            }
            append(UnsafeBufferPointer(rebasing: text[start...]))
        }
        append(UInt8(ascii: "\""))
    }
}
