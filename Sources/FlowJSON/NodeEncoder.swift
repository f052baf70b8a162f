/// The `Encoder` behind ``FlowJSON``: builds an ``EncodedNode`` tree, with the frequent value types (text,
/// numbers, ``JSONValue`` and its objects) taken as they are rather than through their `encode(to:)`.
final class NodeEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// What was encoded so far (nothing yet: `nil`).
    var node: EncodedNode?

    init(codingPath: [any CodingKey]) {
        self.codingPath = codingPath
    }

    /// What was encoded; an encoder nobody wrote to gives an empty object, as Foundation's does.
    var result: EncodedNode {
        node ?? .object(EncodedObject())
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: EncodedObject
        if case .object(let existing) = node {
            object = existing
        } else {
            object = EncodedObject()
            node = .object(object)
        }
        return KeyedEncodingContainer(KeyedNodeContainer<Key>(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: EncodedArray
        if case .array(let existing) = node {
            array = existing
        } else {
            array = EncodedArray()
            node = .array(array)
        }
        return UnkeyedNodeContainer(array: array, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(encoder: self)
    }

    /// The node of any value: the frequent types directly, the others through their `encode(to:)`.
    static func node<T: Encodable>(_ value: T, at path: @autoclosure () -> [any CodingKey]) throws -> EncodedNode {
        if T.self == String.self { return .value(.string(value as! String)) }
        if T.self == JSONValue.self { return .value(value as! JSONValue) }
        if T.self == JSONFragment.self { return .value(try JSONValue(parsing: (value as! JSONFragment).text)) }
        if T.self == [String: JSONValue].self { return .value(.object(value as! [String: JSONValue])) }
        if T.self == Int.self { return .value(.int(value as! Int)) }
        if T.self == Bool.self { return .value(.bool(value as! Bool)) }
        if T.self == UInt64.self { return number(value as! UInt64) }
        if T.self == Double.self { return try number(value as! Double, at: path()) }
        let encoder = NodeEncoder(codingPath: path())
        try value.encode(to: encoder)
        return encoder.result
    }

    static func number(_ value: some BinaryInteger) -> EncodedNode {
        if let small = Int(exactly: value) {
            return .value(.int(small))
        }
        return .unsigned(UInt64(value))
    }

    /// A finite number; JSON has no infinity or NaN, so those are refused (as Foundation's encoder does).
    static func number(_ value: Double, at path: [any CodingKey]) throws -> EncodedNode {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(codingPath: path, debugDescription: "JSON has no \(value)")
            )
        }
        return .value(.double(value))
    }

    static func number(_ value: Float, at path: [any CodingKey]) throws -> EncodedNode {
        // Through its shortest text, so that 0.1 stays 0.1 rather than 0.10000000149011612.
        try number(Double(value.description) ?? Double(value), at: path)
    }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let object: EncodedObject
    let codingPath: [any CodingKey]

    private func append(_ node: EncodedNode, _ key: Key) {
        object.members.append((key.stringValue, node))
    }

    mutating func encodeNil(forKey key: Key) throws { append(.value(.null), key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { append(.value(.bool(value)), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { append(.value(.string(value)), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        append(try NodeEncoder.number(value, at: codingPath + [key]), key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        append(try NodeEncoder.number(value, at: codingPath + [key]), key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { append(.value(.int(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { append(NodeEncoder.number(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { append(NodeEncoder.number(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { append(NodeEncoder.number(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { append(NodeEncoder.number(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { append(NodeEncoder.number(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { append(NodeEncoder.number(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { append(NodeEncoder.number(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { append(NodeEncoder.number(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { append(NodeEncoder.number(value), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        append(try NodeEncoder.node(value, at: codingPath + [key]), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = EncodedObject()
        append(.object(nested), key)
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(object: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = EncodedArray()
        append(.array(nested), key)
        return UnkeyedNodeContainer(array: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = NodeEncoder(codingPath: codingPath + [CodingPathKey.superKey])
        object.members.append((CodingPathKey.superKey.stringValue, .deferred(encoder)))
        return encoder
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let encoder = NodeEncoder(codingPath: codingPath + [key])
        append(.deferred(encoder), key)
        return encoder
    }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let array: EncodedArray
    let codingPath: [any CodingKey]

    var count: Int { array.elements.count }

    private var nextKey: CodingPathKey { CodingPathKey(intValue: array.elements.count) }

    mutating func encodeNil() throws { array.elements.append(.value(.null)) }
    mutating func encode(_ value: Bool) throws { array.elements.append(.value(.bool(value))) }
    mutating func encode(_ value: String) throws { array.elements.append(.value(.string(value))) }
    mutating func encode(_ value: Double) throws {
        array.elements.append(try NodeEncoder.number(value, at: codingPath + [nextKey]))
    }
    mutating func encode(_ value: Float) throws {
        array.elements.append(try NodeEncoder.number(value, at: codingPath + [nextKey]))
    }
    mutating func encode(_ value: Int) throws { array.elements.append(.value(.int(value))) }
    mutating func encode(_ value: Int8) throws { array.elements.append(NodeEncoder.number(value)) }
    mutating func encode(_ value: Int16) throws { array.elements.append(NodeEncoder.number(value)) }
    mutating func encode(_ value: Int32) throws { array.elements.append(NodeEncoder.number(value)) }
    mutating func encode(_ value: Int64) throws { array.elements.append(NodeEncoder.number(value)) }
    mutating func encode(_ value: UInt) throws { array.elements.append(NodeEncoder.number(value)) }
    mutating func encode(_ value: UInt8) throws { array.elements.append(NodeEncoder.number(value)) }
    mutating func encode(_ value: UInt16) throws { array.elements.append(NodeEncoder.number(value)) }
    mutating func encode(_ value: UInt32) throws { array.elements.append(NodeEncoder.number(value)) }
    mutating func encode(_ value: UInt64) throws { array.elements.append(NodeEncoder.number(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        array.elements.append(try NodeEncoder.node(value, at: codingPath + [nextKey]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = EncodedObject()
        let path = codingPath + [nextKey]
        array.elements.append(.object(nested))
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(object: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = EncodedArray()
        let path = codingPath + [nextKey]
        array.elements.append(.array(nested))
        return UnkeyedNodeContainer(array: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = NodeEncoder(codingPath: codingPath + [nextKey])
        array.elements.append(.deferred(encoder))
        return encoder
    }
}

private struct SingleNodeContainer: SingleValueEncodingContainer {
    let encoder: NodeEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.node = .value(.null) }
    mutating func encode(_ value: Bool) throws { encoder.node = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { encoder.node = .value(.string(value)) }
    mutating func encode(_ value: Double) throws { encoder.node = try NodeEncoder.number(value, at: codingPath) }
    mutating func encode(_ value: Float) throws { encoder.node = try NodeEncoder.number(value, at: codingPath) }
    mutating func encode(_ value: Int) throws { encoder.node = .value(.int(value)) }
    mutating func encode(_ value: Int8) throws { encoder.node = NodeEncoder.number(value) }
    mutating func encode(_ value: Int16) throws { encoder.node = NodeEncoder.number(value) }
    mutating func encode(_ value: Int32) throws { encoder.node = NodeEncoder.number(value) }
    mutating func encode(_ value: Int64) throws { encoder.node = NodeEncoder.number(value) }
    mutating func encode(_ value: UInt) throws { encoder.node = NodeEncoder.number(value) }
    mutating func encode(_ value: UInt8) throws { encoder.node = NodeEncoder.number(value) }
    mutating func encode(_ value: UInt16) throws { encoder.node = NodeEncoder.number(value) }
    mutating func encode(_ value: UInt32) throws { encoder.node = NodeEncoder.number(value) }
    mutating func encode(_ value: UInt64) throws { encoder.node = NodeEncoder.number(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.node = try NodeEncoder.node(value, at: codingPath)
    }
}
