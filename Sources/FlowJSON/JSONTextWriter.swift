/// Writes JSON text as UTF-8 bytes, compactly (no spaces), straight into a buffer.
///
/// The wire's hot path: every message FlowBus sends is written by it, through ``FlowJSON``.
@usableFromInline
struct JSONTextWriter: Sendable {
    /// The text so far.
    @usableFromInline var bytes: TextBuffer
    /// Whether object members are written in key order (otherwise in the order they come).
    var sortedKeys = false

    init(sortedKeys: Bool = false, capacity: Int = 256) {
        self.sortedKeys = sortedKeys
        bytes = TextBuffer(capacity: capacity)
    }

    /// Goes on writing after `bytes`.
    init(continuing bytes: TextBuffer) {
        self.bytes = bytes
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
        if case .int(let number) = value, writeNumberMember(key, number, first: first) {
            return
        }
        if !first { bytes.append(UInt8(ascii: ",")) }
        write(key, then: UInt8(ascii: ":"))
        write(value)
    }

    /// A member whose value is a whole number, `,"key":12`, written in one piece when its key has nothing to escape
    /// (most members of a step's parameters): returns `false`, having written nothing, otherwise.
    private mutating func writeNumberMember(_ key: String, _ number: Int, first: Bool) -> Bool {
        var key = key
        return key.withUTF8 { name in
            guard !Self.needsEscaping(name) else { return false }
            bytes.compose(atMost: name.count + TextComposer.longestNumber + 4) { piece in
                if !first { piece.put(UInt8(ascii: ",")) }
                piece.put(UInt8(ascii: "\""))
                piece.put(name)
                piece.put(UInt8(ascii: "\""))
                piece.put(UInt8(ascii: ":"))
                piece.put(number)
            }
            return true
        }
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

    @usableFromInline
    mutating func write(_ value: Int) {
        bytes.compose(atMost: TextComposer.longestNumber) { $0.put(value) }
    }

    mutating func write(_ value: UInt64) {
        bytes.compose(atMost: TextComposer.longestNumber) { $0.put(digitsOf: value) }
    }

    /// A finite number in Swift's shortest form that reads back exactly (`1.5`, `1e-07`); JSON has no
    /// infinity or NaN, so those are written as `null` (``FlowJSON`` refuses them before they get here).
    mutating func write(_ value: Double) {
        guard value.isFinite else {
            writeNull()
            return
        }
        bytes.append(contentsOf: Array(value.description.utf8))
    }

    /// A string, quoted, with `"`, `\` and the control characters escaped; then `byte`, if given (a key's colon).
    mutating func write(_ value: String, then byte: UInt8? = nil) {
        var value = value
        value.withUTF8 { text in
            // Nearly all text has nothing to escape: found 8 bytes at a time, and written whole, in one piece with
            // its quotes.
            guard Self.needsEscaping(text) else {
                bytes.compose(atMost: text.count + 3) { piece in
                    piece.put(UInt8(ascii: "\""))
                    piece.put(text)
                    piece.put(UInt8(ascii: "\""))
                    if let byte { piece.put(byte) }
                }
                return
            }
            bytes.append(UInt8(ascii: "\""))
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
            bytes.append(UInt8(ascii: "\""))
            if let byte { bytes.append(byte) }
        }
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
