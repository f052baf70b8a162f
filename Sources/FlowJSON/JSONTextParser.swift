/// Reads JSON text (RFC 8259, UTF-8) into a ``JSONValue``, byte by byte: the wire's hot path, through
/// ``FlowJSON``.
///
/// Whole numbers that fit an `Int` become `.int`, other numbers `.double`. Strings must be valid UTF-8 and
/// escapes complete (a lone surrogate is refused). A repeated object key keeps its last value. Nesting deeper
/// than ``maximumDepth`` is refused, so a hostile message cannot exhaust the stack.
@usableFromInline
struct JSONTextParser {
    /// How deep arrays and objects may nest, unless the caller says less.
    @usableFromInline static let maximumDepth = 512

    @usableFromInline let text: UnsafeBufferPointer<UInt8>
    private let depthLimit: Int
    @usableFromInline var position = 0
    @usableFromInline var depth = 0

    @usableFromInline
    init(text: UnsafeBufferPointer<UInt8>, depthLimit: Int) {
        self.text = text
        self.depthLimit = depthLimit
    }

    /// The one value the text holds, with only whitespace around it; arrays and objects nested at most
    /// `maximumDepth` deep (refused as soon as the parser is deeper: a hostile text costs no more than that).
    static func parse(
        _ text: UnsafeBufferPointer<UInt8>,
        maximumDepth: Int = maximumDepth
    ) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONTextParser(text: text, depthLimit: min(maximumDepth, Self.maximumDepth))
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.position == text.count else {
            throw parser.failure("unexpected \(parser.describeByte()) after the value")
        }
        return value
    }

    @usableFromInline
    mutating func value() throws(JSONSyntaxError) -> JSONValue {
        guard position < text.count else {
            throw failure("the text ends where a value should be")
        }
        switch text[position] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number()
        default:
            throw failure("unexpected \(describeByte()) where a value should be")
        }
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        // Into a table with room for the few members most objects have (growing it from nothing rehashed it again
        // and again; gathering the members in a list first made a list for every object; more room would stay
        // with every object kept, as a screen's parameters are). A repeated key: the last wins.
        var members = JSONObject(minimumCapacity: 3)
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            position += 1
            return .object([:])
        }
        while true {
            guard peek(UInt8(ascii: "\"")) else {
                throw failure("expected a member name in quotes, found \(describeByte())")
            }
            let key = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "after a member name")
            skipWhitespace()
            members[key] = try value()
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                position += 1
                skipWhitespace()
            } else {
                try expect(UInt8(ascii: "}"), "after a member (or \",\")")
                return .object(members)
            }
        }
    }

    private mutating func array() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            position += 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                position += 1
                skipWhitespace()
            } else {
                try expect(UInt8(ascii: "]"), "after an element (or \",\")")
                return .array(elements)
            }
        }
    }

    /// A string from its opening quote to past its closing one.
    @usableFromInline
    mutating func string() throws(JSONSyntaxError) -> String {
        position += 1
        let start = position
        // Most strings have no escape: one slice, checked as UTF-8 once — and most are ASCII, which is valid
        // UTF-8 as it is (the generic validation costs more than the rest of the parse).
        var bits: UInt8 = 0
        while position < text.count {
            let byte = text[position]
            bits |= byte
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: text[start..<position])
                let value: String
                if bits < 0x80 {
                    value = String(decoding: slice, as: UTF8.self)
                } else if let valid = String(validating: slice, as: UTF8.self) {
                    value = valid
                } else {
                    throw JSONSyntaxError(offset: start, reason: "a string is not valid UTF-8")
                }
                position += 1
                return value
            }
            if byte == UInt8(ascii: "\\") {
                return try escapedString(from: start)
            }
            if byte < 0x20 {
                throw failure("a control character must be escaped in a string")
            }
            position += 1
        }
        throw failure("a string is not closed")
    }

    private mutating func escapedString(from start: Int) throws(JSONSyntaxError) -> String {
        var bytes = Array(UnsafeBufferPointer(rebasing: text[start..<position]))
        while position < text.count {
            let byte = text[position]
            switch byte {
            case UInt8(ascii: "\""):
                guard let value = String(validating: bytes, as: UTF8.self) else {
                    throw JSONSyntaxError(offset: start, reason: "a string is not valid UTF-8")
                }
                position += 1
                return value
            case UInt8(ascii: "\\"):
                position += 1
                guard position < text.count else { break }
                let escape = text[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escape)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "n"): bytes.append(UInt8(ascii: "\n"))
                case UInt8(ascii: "r"): bytes.append(UInt8(ascii: "\r"))
                case UInt8(ascii: "t"): bytes.append(UInt8(ascii: "\t"))
                case UInt8(ascii: "u"): bytes.append(contentsOf: String(try unicodeEscape()).utf8)
                default:
                    position -= 1
                    throw failure("unknown escape \\\(describeByte())")
                }
            default:
                if byte < 0x20 {
                    throw failure("a control character must be escaped in a string")
                }
                bytes.append(byte)
                position += 1
            }
        }
        throw failure("a string is not closed")
    }

    /// The scalar of a `\uXXXX` escape (its `\u` read), with the second half of a surrogate pair when it is one.
    private mutating func unicodeEscape() throws(JSONSyntaxError) -> Character {
        let first = try hexQuad()
        var scalar = first
        if (0xD800..<0xDC00).contains(first) {
            guard position + 1 < text.count, text[position] == UInt8(ascii: "\\"),
                text[position + 1] == UInt8(ascii: "u")
            else {
                throw failure("a \\u escape of a high surrogate must be followed by its low surrogate")
            }
            position += 2
            let second = try hexQuad()
            guard (0xDC00..<0xE000).contains(second) else {
                throw failure("a \\u escape of a high surrogate must be followed by its low surrogate")
            }
            scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        }
        guard let value = Unicode.Scalar(scalar) else {
            throw failure("a \\u escape names a lone surrogate")
        }
        return Character(value)
    }

    private mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
        guard position + 4 <= text.count else {
            throw failure("a \\u escape needs four hexadecimal digits")
        }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = text[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a \\u escape needs four hexadecimal digits")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    @usableFromInline
    mutating func number() throws(JSONSyntaxError) -> JSONValue {
        let start = position
        let negative = peek(UInt8(ascii: "-"))
        if negative { position += 1 }
        guard peekDigit() else {
            throw failure("a number needs a digit here, not \(describeByte())")
        }
        if peek(UInt8(ascii: "0")) {
            position += 1
            if peekDigit() {
                throw failure("a number cannot start with 0")
            }
        } else {
            skipDigits()
        }
        var whole = true
        if peek(UInt8(ascii: ".")) {
            whole = false
            position += 1
            guard peekDigit() else {
                throw failure("a number needs a digit after \".\"")
            }
            skipDigits()
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            whole = false
            position += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { position += 1 }
            guard peekDigit() else {
                throw failure("a number needs a digit in its exponent")
            }
            skipDigits()
        }
        if whole, let value = wholeNumber(from: negative ? start + 1 : start, negative: negative) {
            return .int(value)
        }
        let written = String(decoding: UnsafeBufferPointer(rebasing: text[start..<position]), as: UTF8.self)
        guard let value = Double(written), value.isFinite else {
            throw JSONSyntaxError(offset: start, reason: "the number \(written) is out of range")
        }
        return .double(value)
    }

    /// The digits up to `position` as an Int, or nil when they do not fit one (read as a Double then).
    private func wholeNumber(from start: Int, negative: Bool) -> Int? {
        // Accumulated as a negative number, so that Int.min fits.
        var value = 0
        for index in start..<position {
            let digit = Int(text[index] - UInt8(ascii: "0"))
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (next, underflowed) = shifted.subtractingReportingOverflow(digit)
            guard !overflowed, !underflowed else { return nil }
            value = next
        }
        if negative { return value }
        return value == Int.min ? nil : -value
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard position + expected.count <= text.count,
            UnsafeBufferPointer(rebasing: text[position..<position + expected.count]).elementsEqual(expected)
        else {
            throw failure("unexpected \(describeByte()) where a value should be")
        }
        position += expected.count
    }

    @usableFromInline
    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= depthLimit else {
            throw failure("arrays and objects nest deeper than \(depthLimit)")
        }
    }

    private mutating func expect(_ byte: UInt8, _ place: String) throws(JSONSyntaxError) {
        guard peek(byte) else {
            throw failure("expected \"\(Character(Unicode.Scalar(byte)))\" \(place), found \(describeByte())")
        }
        position += 1
    }

    @inlinable
    func peek(_ byte: UInt8) -> Bool {
        position < text.count && text[position] == byte
    }

    private func peekDigit() -> Bool {
        position < text.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[position])
    }

    private mutating func skipDigits() {
        while peekDigit() { position += 1 }
    }

    @inlinable
    mutating func skipWhitespace() {
        while position < text.count {
            switch text[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
            default: return
            }
        }
    }

    private func failure(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: position, reason: reason)
    }

    /// The byte at `position` in words, for an error.
    private func describeByte() -> String {
        guard position < text.count else { return "the end of the text" }
        let byte = text[position]
        if (0x21..<0x7F).contains(byte) {
            return "\"\(Character(Unicode.Scalar(byte)))\""
        }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }
}
