/// FlowBus's JSON coding: `Codable` values to compact UTF-8 JSON text and back, written for the bus's hot path
/// (several times faster than Foundation's `JSONEncoder`/`JSONDecoder` on the wire's messages; see
/// `flowbench profile`).
///
/// - Objects are written in the order their members are encoded (a struct's declaration order), or sorted by
///   key with `sortedKeys`; no whitespace; `/` is not escaped.
/// - Whole numbers that fit an `Int` are read as such; any number is read as a `Double` when one is asked for. A
///   whole number outside `Int`'s range is read as a `Double`, and refused where an integer type is asked for
///   (digits may have been lost).
/// - Errors: ``JSONSyntaxError`` when the text is not JSON (with the byte offset), Swift's `DecodingError` (with
///   the coding path) when it does not fit the type, `EncodingError` for a number JSON cannot hold (infinity,
///   NaN).
public enum FlowJSON {
    /// The JSON text of a value.
    public static func encode(_ value: some Encodable, sortedKeys: Bool = false) throws -> [UInt8] {
        // Straight to text when members keep their order; what the stream does not follow goes through the tree.
        if !sortedKeys {
            let stream = StreamEncoding()
            if (try? stream.encodeRoot(value)) != nil, !stream.unsupported {
                return stream.writer.bytes.array
            }
        }
        return try encodeThroughNodes(value, sortedKeys: sortedKeys)
    }

    /// ``encode(_:sortedKeys:)`` through a tree of nodes, the way that follows every `Codable` pattern.
    static func encodeThroughNodes(_ value: some Encodable, sortedKeys: Bool = false) throws -> [UInt8] {
        let node = try NodeEncoder.node(value, at: [])
        var writer = JSONTextWriter(sortedKeys: sortedKeys)
        writer.write(node)
        return writer.bytes.array
    }

    /// A value as a ``JSONValue``, without going through text.
    public static func value(of value: some Encodable) throws -> JSONValue {
        try NodeEncoder.node(value, at: []).jsonValue
    }

    /// Reads a value of a type from JSON text.
    public static func decode<T: Decodable>(_ type: T.Type, from text: some Collection<UInt8>) throws -> T {
        try decode(type, from: try JSONValue(parsing: text))
    }

    /// Reads a value of a type from a ``JSONValue``, without going through text.
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try ValueDecoder.decode(type, from: value, at: [])
    }
}

extension JSONValue {
    /// Parses JSON text (UTF-8), with arrays and objects nested at most `maximumDepth` deep (512 at most).
    /// - Throws: ``JSONSyntaxError`` saying what is wrong and at which byte.
    public init(parsing text: some Collection<UInt8>, maximumDepth: Int = 512) throws(JSONSyntaxError) {
        let parsed = text.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONSyntaxError) in try JSONTextParser.parse(buffer, maximumDepth: maximumDepth) }
        }
        switch parsed
            ?? Array(text).withUnsafeBufferPointer({ buffer in
                Result { () throws(JSONSyntaxError) in try JSONTextParser.parse(buffer, maximumDepth: maximumDepth) }
            })
        {
        case .success(let value): self = value
        case .failure(let error): throw error
        }
    }

    /// The value as compact JSON text (UTF-8); `sortedKeys` writes object members in key order.
    public func jsonText(sortedKeys: Bool = false) -> [UInt8] {
        var writer = JSONTextWriter(sortedKeys: sortedKeys)
        writer.write(self)
        return writer.bytes.array
    }

    /// Appends the value's compact JSON text to `text` (a message being written piece by piece).
    public func appendJSONText(to text: inout [UInt8], sortedKeys: Bool = false) {
        var writer = JSONTextWriter(sortedKeys: sortedKeys)
        writer.write(self)
        writer.bytes.withText { text.append(contentsOf: $0) }
    }
}
