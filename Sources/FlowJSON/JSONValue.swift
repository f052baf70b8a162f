/// A JSON value: what step parameters, screen parameters and session data are made of.
///
/// It is the common currency between Swift steps, flow files and the wire, so it keeps JSON's shape exactly
/// (numbers are `Double` or `Int` as written) and is `Codable` as plain JSON.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Each failed attempt throws (and errors are costly): the most frequent kinds in FlowBus bodies first —
        // text, whole numbers, objects (parameters, fields). A JSON value has one kind, so the order is free.
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The integer, if this is one (or a double with no fraction).
    public var intValue: Int? {
        switch self {
        case .int(let value): value
        case .double(let value): Int(exactly: value)
        default: nil
        }
    }

    /// The number as a whole number of the type, when it is one exactly: an integer that fits, or a double
    /// without fraction that fits and that a double holds exactly (below 2^53 — from there on, the text it was
    /// read from may have had digits the double lost: 9007199254740993.0 reads as 2^53). `nil` otherwise.
    public func exactInteger<I: FixedWidthInteger>(as type: I.Type = I.self) -> I? {
        switch self {
        case .int(let number): I(exactly: number)
        case .double(let number) where number.magnitude < 9_007_199_254_740_992: I(exactly: number)
        default: nil
        }
    }

    /// The number, if this is one.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The members, if this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { value } else { nil }
    }
}

/// Parameters of a step or a screen: a JSON object.
public typealias JSONObject = [String: JSONValue]

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue {
    /// The kind of value in words, for errors: `a string`, `an object`...
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON text with object keys sorted, so the same value always prints the same way.
    public var description: String {
        String(decoding: jsonText(sortedKeys: true), as: UTF8.self)
    }
}
