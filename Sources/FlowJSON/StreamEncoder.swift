/// The fast `Encoder` behind ``FlowJSON/encode(_:sortedKeys:)`` when members keep their order: each value is
/// written as text the moment it is encoded, into one buffer, with no tree of nodes built first (snapshots of
/// sessions go through it: the tree cost more than the text).
///
/// Containers are written as they open; one still open is closed as soon as its parent writes again, or when the
/// value that opened it is done — the order `Codable` encodes in. What it does not follow (a super encoder, two
/// kinds of container asked of one encoder, a number JSON cannot hold) marks the encoding `unsupported`, and
/// ``FlowJSON`` encodes the value again through ``NodeEncoder``, which gives the same text or the precise error.
final class StreamEncoding {
    var writer = JSONTextWriter(capacity: 1024)
    /// The closing bracket of each open container, outermost first.
    private var closings: [UInt8] = []
    /// Whether each open container has no element yet.
    private var empty: [Bool] = []
    /// Which container each open one is: a container used after another took its place is noticed.
    private var identities: [Int] = []
    private var opened = 0
    /// Set when the value asked for something this encoder does not follow.
    var unsupported = false

    /// Encodes `value` as the whole text.
    func encodeRoot<T: Encodable>(_ value: T) throws {
        try write(value, depth: 0)
    }

    /// Writes a value at `depth` (inside that many open containers): the frequent types directly, the others
    /// through their `encode(to:)`; a value that encoded nothing is `{}`, as with ``NodeEncoder``.
    func write<T: Encodable>(_ value: T, depth: Int) throws {
        if T.self == String.self { return writer.write(value as! String) }
        if T.self == JSONValue.self { return writer.write(value as! JSONValue) }
        if T.self == JSONFragment.self {
            writer.bytes += (value as! JSONFragment).text
            return
        }
        if T.self == [String: JSONValue].self { return writer.write(JSONValue.object(value as! [String: JSONValue])) }
        if T.self == Int.self { return writer.write(value as! Int) }
        if T.self == Bool.self { return writer.write(value as! Bool) }
        if T.self == UInt64.self { return writer.write(value as! UInt64) }
        if T.self == Double.self { return try write(value as! Double) }
        let before = writer.bytes.count
        try value.encode(to: StreamLevel(encoding: self, depth: depth))
        close(deeperThan: depth)
        if writer.bytes.count == before {
            writer.bytes.append(UInt8(ascii: "{"))
            writer.bytes.append(UInt8(ascii: "}"))
        }
    }

    func write(_ value: Double) throws {
        guard value.isFinite else {
            // The node encoder throws the error, with the coding path.
            unsupported = true
            throw StreamEncodingUnsupported()
        }
        writer.write(value)
    }

    func write(_ value: some BinaryInteger) {
        if let small = Int(exactly: value) {
            writer.write(small)
        } else {
            writer.write(UInt64(value))
        }
    }

    /// Closes the containers deeper than `depth`.
    func close(deeperThan depth: Int) {
        while closings.count > depth {
            writer.bytes.append(closings.removeLast())
            empty.removeLast()
            identities.removeLast()
        }
    }

    /// Opens a container at `depth` (its parent's depth), unless the encoder at that depth opened one of the same
    /// kind already (asked twice, as a class and its subclass may); returns the container's own depth.
    func open(_ opening: UInt8, _ closing: UInt8, at depth: Int) -> (depth: Int, identity: Int) {
        close(deeperThan: depth + 1)
        if closings.count == depth + 1 {
            // The same encoder asked again: the same kind continues, another kind is not followed.
            if closings[depth] != closing { unsupported = true }
            return (depth + 1, identities[depth])
        }
        // A container whose parent was closed already: not the order Codable encodes in.
        guard closings.count == depth else {
            unsupported = true
            return (depth + 1, -1)
        }
        writer.bytes.append(opening)
        closings.append(closing)
        empty.append(true)
        opened += 1
        identities.append(opened)
        return (depth + 1, opened)
    }

    /// Starts an element of the container at `depth` (the container's own depth): closes what an earlier element
    /// left open, and writes the comma.
    func startElement(in depth: Int, of identity: Int) {
        close(deeperThan: depth)
        // An element of a container that was closed already: not the order Codable encodes in.
        guard depth > 0, depth == closings.count, identities[depth - 1] == identity else {
            unsupported = true
            return
        }
        if empty[depth - 1] {
            empty[depth - 1] = false
        } else {
            writer.bytes.append(UInt8(ascii: ","))
        }
    }

    /// Starts a member: the element, then its key.
    func startMember(_ key: String, in depth: Int, of identity: Int) {
        startElement(in: depth, of: identity)
        writer.write(key)
        writer.bytes.append(UInt8(ascii: ":"))
    }
}

/// Thrown inside the stream encoder when it meets what it does not follow; ``FlowJSON`` encodes again then.
struct StreamEncodingUnsupported: Error {}

/// The encoder a value at one depth encodes itself with (small: passed without an allocation).
private struct StreamLevel: Encoder {
    let encoding: StreamEncoding
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let own = encoding.open(UInt8(ascii: "{"), UInt8(ascii: "}"), at: depth)
        return KeyedEncodingContainer(StreamKeyed<Key>(encoding: encoding, depth: own.depth, identity: own.identity))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let own = encoding.open(UInt8(ascii: "["), UInt8(ascii: "]"), at: depth)
        return StreamUnkeyed(encoding: encoding, depth: own.depth, identity: own.identity)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        StreamSingle(encoding: encoding, depth: depth)
    }
}

private struct StreamKeyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoding: StreamEncoding
    /// The container's own depth.
    let depth: Int
    let identity: Int
    var codingPath: [any CodingKey] { [] }

    private func start(_ key: Key) { encoding.startMember(key.stringValue, in: depth, of: identity) }

    mutating func encodeNil(forKey key: Key) throws {
        start(key)
        encoding.writer.writeNull()
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        start(key)
        encoding.writer.write(value)
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        start(key)
        encoding.writer.write(value)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        start(key)
        try encoding.write(value)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        start(key)
        try encoding.write(Double(value.description) ?? Double(value))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        start(key)
        encoding.writer.write(value)
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

    private func integer(_ value: some BinaryInteger, _ key: Key) throws {
        start(key)
        encoding.write(value)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        start(key)
        try encoding.write(value, depth: depth)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        start(key)
        let own = encoding.open(UInt8(ascii: "{"), UInt8(ascii: "}"), at: depth)
        return KeyedEncodingContainer(
            StreamKeyed<NestedKey>(encoding: encoding, depth: own.depth, identity: own.identity)
        )
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        start(key)
        let own = encoding.open(UInt8(ascii: "["), UInt8(ascii: "]"), at: depth)
        return StreamUnkeyed(encoding: encoding, depth: own.depth, identity: own.identity)
    }

    mutating func superEncoder() -> any Encoder {
        encoding.unsupported = true
        return StreamLevel(encoding: encoding, depth: depth)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoding.unsupported = true
        return StreamLevel(encoding: encoding, depth: depth)
    }
}

/// What an unkeyed container and a single-value one write alike: each value after ``startValue()``.
private protocol StreamValueContainer {
    var encoding: StreamEncoding { get }
    /// The depth a nested value is written at.
    var depth: Int { get }
    /// Readies the place of the next value (closes what the last one left open; a comma in an array).
    mutating func startValue()
}

extension StreamValueContainer {
    mutating func encodeNil() throws {
        startValue()
        encoding.writer.writeNull()
    }
    mutating func encode(_ value: Bool) throws {
        startValue()
        encoding.writer.write(value)
    }
    mutating func encode(_ value: String) throws {
        startValue()
        encoding.writer.write(value)
    }
    mutating func encode(_ value: Double) throws {
        startValue()
        try encoding.write(value)
    }
    mutating func encode(_ value: Float) throws {
        startValue()
        try encoding.write(Double(value.description) ?? Double(value))
    }
    mutating func encode(_ value: Int) throws {
        startValue()
        encoding.writer.write(value)
    }
    mutating func encode(_ value: Int8) throws { integer(value) }
    mutating func encode(_ value: Int16) throws { integer(value) }
    mutating func encode(_ value: Int32) throws { integer(value) }
    mutating func encode(_ value: Int64) throws { integer(value) }
    mutating func encode(_ value: UInt) throws { integer(value) }
    mutating func encode(_ value: UInt8) throws { integer(value) }
    mutating func encode(_ value: UInt16) throws { integer(value) }
    mutating func encode(_ value: UInt32) throws { integer(value) }
    mutating func encode(_ value: UInt64) throws { integer(value) }

    private mutating func integer(_ value: some BinaryInteger) {
        startValue()
        encoding.write(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        startValue()
        try encoding.write(value, depth: depth)
    }
}

private struct StreamUnkeyed: UnkeyedEncodingContainer, StreamValueContainer {
    let encoding: StreamEncoding
    /// The container's own depth.
    let depth: Int
    let identity: Int
    private(set) var count = 0
    var codingPath: [any CodingKey] { [] }

    init(encoding: StreamEncoding, depth: Int, identity: Int) {
        self.encoding = encoding
        self.depth = depth
        self.identity = identity
    }

    mutating func startValue() {
        encoding.startElement(in: depth, of: identity)
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        startValue()
        let own = encoding.open(UInt8(ascii: "{"), UInt8(ascii: "}"), at: depth)
        return KeyedEncodingContainer(
            StreamKeyed<NestedKey>(encoding: encoding, depth: own.depth, identity: own.identity)
        )
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        startValue()
        let own = encoding.open(UInt8(ascii: "["), UInt8(ascii: "]"), at: depth)
        return StreamUnkeyed(encoding: encoding, depth: own.depth, identity: own.identity)
    }

    mutating func superEncoder() -> any Encoder {
        encoding.unsupported = true
        return StreamLevel(encoding: encoding, depth: depth)
    }
}

private struct StreamSingle: SingleValueEncodingContainer, StreamValueContainer {
    let encoding: StreamEncoding
    /// The depth of the value.
    let depth: Int
    var codingPath: [any CodingKey] { [] }

    func startValue() { encoding.close(deeperThan: depth) }
}
