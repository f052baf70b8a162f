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
public struct JSONObjectWriter: JSONMembers {
    // Visible to inlinable code: the generic members below are specialized where they are used (FlowWire's
    // messages), not called through their elements' metadata.
    @usableFromInline var writer: JSONTextWriter
    @usableFromInline var empty = true

    /// Starts an object.
    public init(capacity: Int = 128) {
        writer = JSONTextWriter(capacity: capacity)
        writer.bytes.append(UInt8(ascii: "{"))
    }

    /// Writes an object at the end of `text` (a message being written piece by piece), its members given by
    /// `members`. The text is written in place, never copied.
    public static func object(appendingTo text: inout [UInt8], _ members: (inout JSONObjectWriter) -> Void) {
        var object = JSONObjectWriter(writer: JSONTextWriter(capacity: 0))
        swap(&object.writer.bytes, &text)
        object.writer.bytes.append(UInt8(ascii: "{"))
        members(&object)
        object.writer.bytes.append(UInt8(ascii: "}"))
        swap(&object.writer.bytes, &text)
    }

    /// Goes on writing members after those of `text`: an object's text, open (no closing brace), with at least one
    /// member (members written once and used as the start of many objects). `capacity`: the room to keep for the
    /// whole text.
    public init(continuing text: [UInt8], capacity: Int) {
        writer = JSONTextWriter(capacity: 0)
        writer.bytes.reserveCapacity(capacity)
        writer.bytes += text
        empty = false
    }

    private init(writer: JSONTextWriter) {
        self.writer = writer
    }

    /// A member whose value is any JSON value; `sortedKeys` writes the members of its objects in key order.
    public mutating func member(_ key: StaticString, _ value: JSONValue, sortedKeys: Bool) {
        name(key)
        writer.sortedKeys = sortedKeys
        writer.write(value)
        writer.sortedKeys = false
    }

    /// A member whose value is a string.
    public mutating func member(_ key: StaticString, _ value: String) {
        name(key)
        writer.write(value)
    }

    /// A member whose value is a whole number.
    public mutating func member(_ key: StaticString, _ value: Int) {
        name(key)
        writer.write(value)
    }

    /// A member whose value is any JSON value.
    public mutating func member(_ key: StaticString, _ value: JSONValue) {
        member(key, value, sortedKeys: false)
    }

    /// A member whose value is an object, written member by member by `members`.
    @inlinable
    public mutating func member(_ key: StaticString, object members: (inout JSONObjectWriter) -> Void) {
        name(key)
        writer.bytes.append(UInt8(ascii: "{"))
        empty = true
        members(&self)
        writer.bytes.append(UInt8(ascii: "}"))
        empty = false
    }

    public mutating func member(_ key: StaticString, _ value: Bool) {
        name(key)
        writer.write(value)
    }

    @inlinable
    public mutating func member<Integers: Collection<Int>>(_ key: StaticString, integers: Integers) {
        name(key)
        writer.bytes.append(UInt8(ascii: "["))
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
            object.writer.bytes.append(UInt8(ascii: "{"))
            object.empty = true
            write(element, &object)
            object.writer.bytes.append(UInt8(ascii: "}"))
        }
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
        return writer.bytes
    }

    /// A member whose key is not a literal (a ``JSONObject``'s), escaped as JSON needs.
    public mutating func member(named key: String, _ value: JSONValue) {
        separate()
        writer.write(key)
        writer.bytes.append(UInt8(ascii: ":"))
        writer.write(value)
    }

    @usableFromInline
    mutating func name(_ key: StaticString) {
        separate()
        // A literal name: nothing to escape (see JSONMembers).
        writer.appendName(key)
    }

    @usableFromInline
    mutating func separate() {
        if !empty {
            writer.bytes.append(UInt8(ascii: ","))
        }
        empty = false
    }
}
