/// Writes a JSON object member by member, straight as compact text: for the hot path, where building a
/// ``JSONObject`` only to write it costs more than the writing. Keys are written in the order they are given;
/// giving a key twice writes it twice (JSON readers keep the last), so don't. Literal keys are written as they are
/// (see ``JSONMembers``); ``member(named:_:)`` takes any other.
///
/// ```swift
/// var fields = JSONObjectWriter()
/// fields.member("token", 12)
/// fields.member("step", step.wireValue)
/// let text = fields.finished()   // {"token":12,"step":{...}}
/// ```
public struct JSONObjectWriter: JSONMembers, Sendable {
    // Visible to inlinable code: the generic members below are specialized where they are used (FlowWire's
    // messages), not called through their elements' metadata.
    @usableFromInline var writer: JSONTextWriter
    @usableFromInline var empty = true

    /// Starts an object.
    public init(capacity: Int = 128) {
        self.init(opening: UInt8(ascii: "{"), capacity: capacity)
    }

    /// Starts a text with `opening` (a brace, or the bracket of a ``JSONArrayWriter``'s array).
    init(opening: UInt8, capacity: Int) {
        writer = JSONTextWriter(capacity: capacity)
        writer.bytes.append(opening)
    }

    /// Goes on writing members after those of `text`: an object's text, open (no closing brace), with at least one
    /// member (members written once and used as the start of many objects). `capacity`: the room to keep for the
    /// whole text.
    public init(continuing text: [UInt8], capacity: Int) {
        writer = JSONTextWriter(continuing: TextBuffer(text, capacity: capacity))
        empty = false
    }

    /// A member whose value is any JSON value; `sortedKeys` writes the members of its objects in key order.
    public mutating func member(_ key: StaticString, _ value: JSONValue, sortedKeys: Bool) {
        name(key)
        writer.sortedKeys = sortedKeys
        writer.write(value)
        writer.sortedKeys = false
    }

    /// A member whose value is a string: written in one piece, with its name, when it has nothing to escape.
    public mutating func member(_ key: StaticString, _ value: String) {
        var value = value
        let composed = value.withUTF8 { text -> Bool in
            guard !JSONTextWriter.needsEscaping(text) else { return false }
            let separated = takeSeparator()
            writer.bytes.compose(atMost: key.utf8CodeUnitCount + text.count + 6) { piece in
                if separated { piece.put(UInt8(ascii: ",")) }
                piece.put(name: key)
                piece.put(UInt8(ascii: "\""))
                piece.put(text)
                piece.put(UInt8(ascii: "\""))
            }
            return true
        }
        if !composed {
            name(key)
            writer.write(value)
        }
    }

    /// A member whose value is a whole number, in one piece.
    public mutating func member(_ key: StaticString, _ value: Int) {
        let separated = takeSeparator()
        writer.bytes.compose(atMost: key.utf8CodeUnitCount + TextComposer.longestNumber + 4) { piece in
            if separated { piece.put(UInt8(ascii: ",")) }
            piece.put(name: key)
            piece.put(value)
        }
    }

    /// A member whose value is any JSON value.
    public mutating func member(_ key: StaticString, _ value: JSONValue) {
        member(key, value, sortedKeys: false)
    }

    /// A member whose value is an object, written member by member by `members`.
    @inlinable
    public mutating func member(_ key: StaticString, object members: (inout JSONObjectWriter) -> Void) {
        name(key)
        nestedObject(members)
    }

    public mutating func member(_ key: StaticString, _ value: Bool) {
        name(key)
        writer.write(value)
    }

    @inlinable
    public mutating func member<Integers: Collection<Int>>(_ key: StaticString, integers: Integers) {
        name(key, opening: UInt8(ascii: "["))
        var first = true
        for value in integers {
            if !first { writer.bytes.append(UInt8(ascii: ",")) }
            first = false
            writer.write(value)
        }
        writer.bytes.append(UInt8(ascii: "]"))
    }

    @inlinable
    public mutating func member<Element>(
        _ key: StaticString,
        objects elements: [Element],
        _ write: (Element, inout JSONObjectWriter) -> Void
    ) {
        name(key)
        array(elements) { element, object in
            object.nestedObject { write(element, &$0) }
        }
        empty = false
    }

    /// An object's text where a value goes (after a member's name, or in an array), its members given by `members`
    /// with this writer; the writer's own members go on after it.
    @inlinable
    mutating func nestedObject(_ members: (inout JSONObjectWriter) -> Void) {
        writer.bytes.append(UInt8(ascii: "{"))
        empty = true
        members(&self)
        writer.bytes.append(UInt8(ascii: "}"))
        empty = false
    }

    /// An array's text, each element written by `write`, commas between.
    @inlinable
    mutating func array<Element>(_ elements: [Element], _ write: (Element, inout JSONObjectWriter) -> Void) {
        writer.bytes.append(UInt8(ascii: "["))
        var first = true
        for element in elements {
            if !first { writer.bytes.append(UInt8(ascii: ",")) }
            first = false
            write(element, &self)
        }
        writer.bytes.append(UInt8(ascii: "]"))
    }

    /// A member whose value is already JSON text (a message's body, written once and used again): it is copied
    /// as it is, unchecked.
    public mutating func member(_ key: StaticString, jsonText: [UInt8]) {
        name(key)
        writer.bytes += jsonText
    }

    /// The object's text, closed.
    public consuming func finished() -> [UInt8] {
        writer.bytes.append(UInt8(ascii: "}"))
        return writer.bytes.array
    }

    /// A member whose key is not a literal (a ``JSONObject``'s), escaped as JSON needs.
    public mutating func member(named key: String, _ value: JSONValue) {
        separate()
        writer.write(key)
        writer.bytes.append(UInt8(ascii: ":"))
        writer.write(value)
    }

    /// A member's name and its colon, after a comma when members came before, then `opening` (a bracket or brace
    /// that starts its value), in one piece. A literal name: nothing to escape (see ``JSONMembers``).
    @usableFromInline
    mutating func name(_ key: StaticString, opening: UInt8? = nil) {
        let separated = takeSeparator()
        writer.bytes.compose(atMost: key.utf8CodeUnitCount + 5) { piece in
            if separated { piece.put(UInt8(ascii: ",")) }
            piece.put(name: key)
            if let opening { piece.put(opening) }
        }
    }

    @usableFromInline
    mutating func separate() {
        if !empty {
            writer.bytes.append(UInt8(ascii: ","))
        }
        empty = false
    }

    /// Notes that a member follows; returns whether it needs a comma before it, which the caller's piece writes.
    @usableFromInline
    mutating func takeSeparator() -> Bool {
        defer { empty = false }
        return !empty
    }
}
