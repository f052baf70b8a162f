/// The `Decoder` behind ``FlowJSON``: reads `Decodable` values from a parsed ``JSONValue``, with the frequent
/// types (text, numbers, ``JSONValue`` and its objects) taken as they are rather than through `init(from:)`.
///
/// Errors are Swift's `DecodingError`s with the coding path, as Foundation's decoder throws them.
final class ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(value: JSONValue, codingPath: [any CodingKey]) {
        self.value = value
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw Self.mismatch([String: JSONValue].self, "an object", value, codingPath)
        }
        return KeyedDecodingContainer(KeyedValueContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw Self.mismatch([JSONValue].self, "an array", value, codingPath)
        }
        return UnkeyedValueContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(value: value, codingPath: codingPath)
    }

    /// A value of any type: the frequent types directly, the others through their `init(from:)`.
    static func decode<T: Decodable>(
        _ type: T.Type,
        from value: JSONValue,
        at path: @autoclosure () -> [any CodingKey]
    ) throws -> T {
        if T.self == String.self { return try string(value, path()) as! T }
        if T.self == JSONValue.self { return value as! T }
        if T.self == [String: JSONValue].self {
            guard case .object(let members) = value else {
                throw mismatch(T.self, "an object", value, path())
            }
            return members as! T
        }
        if T.self == Int.self { return try integer(Int.self, value, path()) as! T }
        if T.self == UInt64.self { return try integer(UInt64.self, value, path()) as! T }
        if T.self == Bool.self { return try bool(value, path()) as! T }
        if T.self == Double.self { return try floating(Double.self, value, path()) as! T }
        return try T(from: ValueDecoder(value: value, codingPath: path()))
    }

    static func string(_ value: JSONValue, _ path: [any CodingKey]) throws -> String {
        guard case .string(let text) = value else {
            throw mismatch(String.self, "a string", value, path)
        }
        return text
    }

    static func bool(_ value: JSONValue, _ path: [any CodingKey]) throws -> Bool {
        guard case .bool(let flag) = value else {
            throw mismatch(Bool.self, "true or false", value, path)
        }
        return flag
    }

    /// A whole number that fits the type (see ``JSONValue/exactInteger(as:)``).
    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> I {
        switch value {
        case .int, .double:
            guard let fitting = value.exactInteger(as: I.self) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: path,
                        debugDescription: "the number \(value) does not fit in \(I.self)"
                    )
                )
            }
            return fitting
        default:
            throw mismatch(I.self, "a whole number", value, path)
        }
    }

    static func floating<F: BinaryFloatingPoint>(
        _ type: F.Type,
        _ value: JSONValue,
        _ path: [any CodingKey]
    ) throws -> F {
        switch value {
        case .int(let number): return F(number)
        case .double(let number): return F(number)
        default: throw mismatch(F.self, "a number", value, path)
        }
    }

    /// The error for a value of the wrong kind (`null` where a value is needed is "not found", as Foundation says).
    static func mismatch(
        _ type: Any.Type,
        _ expected: String,
        _ value: JSONValue,
        _ path: [any CodingKey]
    )
        -> DecodingError
    {
        let context = DecodingError.Context(
            codingPath: path,
            debugDescription: "expected \(expected), found \(value.kindName)"
        )
        if value == .null {
            return DecodingError.valueNotFound(type, context)
        }
        return DecodingError.typeMismatch(type, context)
    }
}

private struct KeyedValueContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(codingPath: codingPath, debugDescription: "no member \"\(key.stringValue)\"")
            )
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try ValueDecoder.bool(try member(key), codingPath + [key])
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try ValueDecoder.string(try member(key), codingPath + [key])
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try floating(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try floating(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try ValueDecoder.decode(type, from: try member(key), at: codingPath + [key])
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = members[key.stringValue], value != .null else { return nil }
        return try ValueDecoder.decode(type, from: value, at: codingPath + [key])
    }

    private func integer<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I {
        try ValueDecoder.integer(type, try member(key), codingPath + [key])
    }

    private func floating<F: BinaryFloatingPoint>(_ type: F.Type, _ key: Key) throws -> F {
        try ValueDecoder.floating(type, try member(key), codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: members["super"] ?? .null, codingPath: codingPath + [CodingPathKey.superKey])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedValueContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private var currentPath: [any CodingKey] { codingPath + [CodingPathKey(intValue: currentIndex)] }

    private mutating func next(_ type: Any.Type) throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(codingPath: currentPath, debugDescription: "the array has no more elements")
            )
        }
        defer { currentIndex += 1 }
        return elements[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let path = currentPath
        return try ValueDecoder.bool(try next(type), path)
    }
    mutating func decode(_ type: String.Type) throws -> String {
        let path = currentPath
        return try ValueDecoder.string(try next(type), path)
    }
    mutating func decode(_ type: Double.Type) throws -> Double { try floating(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try floating(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let path = currentPath
        return try ValueDecoder.decode(type, from: try next(type), at: path)
    }

    private mutating func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        let path = currentPath
        return try ValueDecoder.integer(type, try next(type), path)
    }

    private mutating func floating<F: BinaryFloatingPoint>(_ type: F.Type) throws -> F {
        let path = currentPath
        return try ValueDecoder.floating(type, try next(type), path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let path = currentPath
        return try ValueDecoder(value: try next(type), codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let path = currentPath
        return try ValueDecoder(value: try next([JSONValue].self), codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let path = currentPath
        return ValueDecoder(value: try next(JSONValue.self), codingPath: path)
    }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try ValueDecoder.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try ValueDecoder.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try ValueDecoder.floating(type, value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try ValueDecoder.floating(type, value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try ValueDecoder.integer(type, value, codingPath) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try ValueDecoder.decode(type, from: value, at: codingPath)
    }
}
