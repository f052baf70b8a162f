/// Writes a JSON object member by member, straight as compact text: for the hot path, where building a
/// ``JSONObject`` only to write it costs more than the writing. Keys are written in the order they are given;
/// giving a key twice writes it twice (JSON readers keep the last), so don't.
///
/// ```swift
/// var fields = JSONObjectWriter()
/// fields.member("token", 12)
/// fields.member("step", step.wireValue)
/// let text = fields.finished()   // {"token":12,"step":{...}}
/// ```
public struct JSONObjectWriter {
    private var writer: JSONTextWriter
    private var empty = true

    /// Starts an object.
    public init(capacity: Int = 128) {
        writer = JSONTextWriter(capacity: capacity)
        writer.bytes.append(UInt8(ascii: "{"))
    }

    /// A member whose value is any JSON value; `sortedKeys` writes the members of its objects in key order.
    public mutating func member(_ key: String, _ value: JSONValue, sortedKeys: Bool = false) {
        name(key)
        writer.sortedKeys = sortedKeys
        writer.write(value)
        writer.sortedKeys = false
    }

    /// A member whose value is a string.
    public mutating func member(_ key: String, _ value: String) {
        name(key)
        writer.write(value)
    }

    /// A member whose value is a whole number.
    public mutating func member(_ key: String, _ value: Int) {
        name(key)
        writer.write(value)
    }

    /// A member whose value is already JSON text (a message's body, written once and used again): it is copied
    /// as it is, unchecked.
    public mutating func member(_ key: String, jsonText: [UInt8]) {
        name(key)
        writer.bytes += jsonText
    }

    /// The object's text, closed.
    public consuming func finished() -> [UInt8] {
        writer.bytes.append(UInt8(ascii: "}"))
        return writer.bytes
    }

    private mutating func name(_ key: String) {
        if !empty {
            writer.bytes.append(UInt8(ascii: ","))
        }
        empty = false
        writer.write(key)
        writer.bytes.append(UInt8(ascii: ":"))
    }
}
