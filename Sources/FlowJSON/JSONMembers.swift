/// Takes a JSON object's members one by one: ``JSONObjectWriter`` writes them straight as text,
/// ``JSONObjectBuilder`` collects them into a ``JSONObject``. A wire form written once against it serves both: the
/// hot path writes text, the rest gets a value.
///
/// Keys are literals, written as they are: plain ASCII names, nothing JSON would have to escape.
public protocol JSONMembers {
    /// A member whose value is any JSON value.
    mutating func member(_ key: StaticString, _ value: JSONValue)
    /// A member whose value is a string.
    mutating func member(_ key: StaticString, _ value: String)
    /// A member whose value is a whole number.
    mutating func member(_ key: StaticString, _ value: Int)
    /// A member whose value is an object, its members given by `members`.
    mutating func member(_ key: StaticString, object members: (inout Self) -> Void)
    /// A member whose value is `true` or `false`.
    mutating func member(_ key: StaticString, _ value: Bool)
    /// A member whose value is an array of whole numbers (any collection of them: a lazy map of ids makes no array).
    mutating func member<Integers: Collection<Int>>(_ key: StaticString, integers: Integers)
    /// A member whose value is an array of objects, each written member by member by `write`.
    mutating func member<Element>(
        _ key: StaticString,
        objects elements: [Element],
        _ write: (Element, inout Self) -> Void
    )
}

/// Collects members into a ``JSONObject``.
public struct JSONObjectBuilder: JSONMembers {
    /// The members so far.
    public private(set) var object: JSONObject = [:]

    public init() {}

    /// The object `members` gives.
    public static func object(_ members: (inout JSONObjectBuilder) -> Void) -> JSONObject {
        var builder = JSONObjectBuilder()
        members(&builder)
        return builder.object
    }

    public mutating func member(_ key: StaticString, _ value: JSONValue) {
        object[key.description] = value
    }

    public mutating func member(_ key: StaticString, _ value: String) {
        object[key.description] = .string(value)
    }

    public mutating func member(_ key: StaticString, _ value: Int) {
        object[key.description] = .int(value)
    }

    public mutating func member(_ key: StaticString, object members: (inout JSONObjectBuilder) -> Void) {
        object[key.description] = .object(Self.object(members))
    }

    public mutating func member(_ key: StaticString, _ value: Bool) {
        object[key.description] = .bool(value)
    }

    public mutating func member<Integers: Collection<Int>>(_ key: StaticString, integers: Integers) {
        object[key.description] = .array(integers.map(JSONValue.int))
    }

    public mutating func member<Element>(
        _ key: StaticString,
        objects elements: [Element],
        _ write: (Element, inout JSONObjectBuilder) -> Void
    ) {
        object[key.description] = .array(
            elements.map { element in .object(Self.object { write(element, &$0) }) }
        )
    }
}
