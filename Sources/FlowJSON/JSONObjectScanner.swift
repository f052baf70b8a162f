/// Reads a JSON object member by member in one pass over its text, each value as the caller expects it: the fast
/// path for messages whose shape is known (a STEP and its header), with no ``JSONValue`` built for the object.
///
/// Whatever the caller did not expect — a value of another type, a number with a fraction, `null`, an escaped key,
/// text that is not JSON — ends the scan with `false`; the caller then reads the text the general way, which says
/// precisely what is wrong. Depth is limited as ``JSONValue/init(parsing:maximumDepth:)`` limits it.
public struct JSONObjectScanner {
    @usableFromInline var parser: JSONTextParser

    @usableFromInline
    init(parser: JSONTextParser) {
        self.parser = parser
    }

    /// Scans the one object `text` holds: `member` gets each member's key and the scanner at its value, which it
    /// reads (or skips) before returning `true`. Returns whether the text was one object, every member read.
    @inlinable
    public static func scan(
        _ text: [UInt8],
        maximumDepth: Int,
        _ member: (JSONKey, inout JSONObjectScanner) -> Bool
    ) -> Bool {
        text.withUnsafeBufferPointer { buffer in
            let depthLimit = min(maximumDepth, JSONTextParser.maximumDepth)
            var scanner = JSONObjectScanner(parser: JSONTextParser(text: buffer, depthLimit: depthLimit))
            scanner.parser.skipWhitespace()
            guard scanner.members(member) else { return false }
            scanner.parser.skipWhitespace()
            return scanner.parser.position == buffer.count
        }
    }

    /// Reads the object at the scanner's position member by member (see ``scan(_:maximumDepth:_:)``).
    @inlinable
    public mutating func members(_ member: (JSONKey, inout JSONObjectScanner) -> Bool) -> Bool {
        items(opening: UInt8(ascii: "{"), closing: UInt8(ascii: "}")) { scanner in
            guard let key = scanner.plainKey() else { return false }
            scanner.parser.skipWhitespace()
            guard scanner.parser.peek(UInt8(ascii: ":")) else { return false }
            scanner.parser.position += 1
            scanner.parser.skipWhitespace()
            return member(key, &scanner)
        }
    }

    /// Reads the array at the scanner's position element by element: `element` gets the scanner at each element,
    /// which it reads before returning `true`. Returns whether it was an array, every element read.
    @inlinable
    public mutating func elements(_ element: (inout JSONObjectScanner) -> Bool) -> Bool {
        items(opening: UInt8(ascii: "["), closing: UInt8(ascii: "]"), element)
    }

    /// Reads a container's items between its brackets, commas between them, one nesting level deeper: `item` reads
    /// each (an object's key, colon and value; an array's element). Returns whether every item was read.
    @inlinable
    mutating func items(
        opening: UInt8,
        closing: UInt8,
        _ item: (inout JSONObjectScanner) -> Bool
    ) -> Bool {
        guard parser.peek(opening), (try? parser.enter()) != nil else { return false }
        defer { parser.depth -= 1 }
        parser.position += 1
        parser.skipWhitespace()
        if parser.peek(closing) {
            parser.position += 1
            return true
        }
        while true {
            guard item(&self) else { return false }
            parser.skipWhitespace()
            if parser.peek(UInt8(ascii: ",")) {
                parser.position += 1
                parser.skipWhitespace()
            } else {
                guard parser.peek(closing) else { return false }
                parser.position += 1
                return true
            }
        }
    }

    /// A key without escapes, as its bytes (an escaped one ends the scan: the general reader takes it).
    @inlinable
    mutating func plainKey() -> JSONKey? {
        guard parser.peek(UInt8(ascii: "\"")) else { return nil }
        let start = parser.position + 1
        var end = start
        while end < parser.text.count {
            let byte = parser.text[end]
            if byte == UInt8(ascii: "\"") {
                parser.position = end + 1
                return JSONKey(bytes: UnsafeBufferPointer(rebasing: parser.text[start..<end]))
            }
            guard byte != UInt8(ascii: "\\"), byte >= 0x20 else { return nil }
            end += 1
        }
        return nil
    }

    /// A whole number without fraction or exponent that fits an `Int`.
    @inlinable
    public mutating func integer() -> Int? {
        guard case .int(let value)? = try? parser.number() else { return nil }
        return value
    }

    /// `true` or `false`.
    public mutating func boolean() -> Bool? {
        guard case .bool(let flag)? = try? parser.value() else { return nil }
        return flag
    }

    /// An array of whole numbers that fit an `Int` (any other element: `nil`).
    public mutating func integers() -> [Int]? {
        guard parser.peek(UInt8(ascii: "[")), case .array(let elements)? = try? parser.value() else { return nil }
        var numbers: [Int] = []
        numbers.reserveCapacity(elements.count)
        for element in elements {
            guard case .int(let number) = element else { return nil }
            numbers.append(number)
        }
        return numbers
    }

    /// A string.
    @inlinable
    public mutating func string() -> String? {
        guard parser.peek(UInt8(ascii: "\"")) else { return nil }
        return try? parser.string()
    }

    /// An object, whole (its members as values).
    public mutating func object() -> JSONObject? {
        guard parser.peek(UInt8(ascii: "{")), case .object(let members)? = try? parser.value() else { return nil }
        return members
    }

    /// Any value, read past (a member the caller does not know: newer peers may add some).
    public mutating func skip() -> Bool {
        (try? parser.value()) != nil
    }
}

/// A member's key as ``JSONObjectScanner`` reads it: its bytes, valid during the call that gets it.
public struct JSONKey {
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>

    @usableFromInline
    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Whether the key is `name`. Inlined where it is called: with `name` a literal, a key of another length is
    /// told apart by one comparison (a reader asks each key of a message against every key it knows).
    @inlinable
    public func matches(_ name: StaticString) -> Bool {
        guard name.utf8CodeUnitCount == bytes.count else { return false }
        let expected = name.utf8Start
        for index in 0..<bytes.count where bytes[index] != expected[index] {
            return false
        }
        return true
    }
}
