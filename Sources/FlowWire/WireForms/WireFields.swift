import FlowCore

/// An object's members as a ``WireRepresentable`` reads them: typed, and with errors that name the field by
/// its path in the message.
struct WireFields {
    let members: JSONObject
    /// Where the object is in the message (`""` for the body itself).
    let path: String

    init(_ value: JSONValue, at path: String) throws(WireFieldError) {
        guard case .object(let members) = value else {
            throw WireFieldError(
                path.isEmpty
                    ? "must be an object, not \(value.kindName)"
                    : "\"\(path)\" must be an object, not \(value.kindName)"
            )
        }
        self.members = members
        self.path = path
    }

    /// The path of a member.
    func name(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    /// A member that must be there (and not null).
    func required(_ key: String) throws(WireFieldError) -> JSONValue {
        guard let value = members[key] else {
            throw WireFieldError("missing \"\(name(key))\"")
        }
        guard value != .null else {
            throw WireFieldError("\"\(name(key))\" must not be null")
        }
        return value
    }

    /// A member that may be absent or null.
    func optional(_ key: String) -> JSONValue? {
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    func string(_ key: String) throws(WireFieldError) -> String {
        try Self.string(try required(key), name(key))
    }

    func optionalString(_ key: String) throws(WireFieldError) -> String? {
        guard let value = optional(key) else { return nil }
        return try Self.string(value, name(key))
    }

    /// A string that must be one of an enumeration's raw values (a style, a visibility).
    func oneOf<Value: RawRepresentable & CaseIterable>(
        _ key: String,
        as type: Value.Type
    ) throws(WireFieldError)
        -> Value
    where Value.RawValue == String {
        let text = try string(key)
        guard let value = Value(rawValue: text) else {
            let known = Value.allCases.map(\.rawValue).joined(separator: ", ")
            throw WireFieldError("\"\(name(key))\" must be one of \(known), not \"\(text)\"")
        }
        return value
    }

    func bool(_ key: String) throws(WireFieldError) -> Bool {
        guard case .bool(let flag) = try required(key) else {
            throw mismatch(key, "true or false")
        }
        return flag
    }

    func unsigned(_ key: String) throws(WireFieldError) -> UInt64 {
        try Self.whole(try required(key), name(key))
    }

    /// A STEP's or DEEPLINK's sequence number: they start at 1.
    func sequence(_ key: String) throws(WireFieldError) -> UInt64 {
        let number = try unsigned(key)
        guard number >= 1 else {
            throw WireFieldError("\"\(name(key))\" must be an integer from 1 (sequences start at 1), not 0")
        }
        return number
    }

    func optionalUnsigned(_ key: String) throws(WireFieldError) -> UInt64? {
        guard let value = optional(key) else { return nil }
        return try Self.whole(value, name(key))
    }

    func integer<I: FixedWidthInteger>(_ key: String, as type: I.Type = Int.self) throws(WireFieldError) -> I {
        try Self.whole(try required(key), name(key))
    }

    func object(_ key: String) throws(WireFieldError) -> JSONObject {
        guard case .object(let members) = try required(key) else {
            throw mismatch(key, "an object")
        }
        return members
    }

    func array(_ key: String) throws(WireFieldError) -> [JSONValue] {
        guard case .array(let elements) = try required(key) else {
            throw mismatch(key, "an array")
        }
        return elements
    }

    func id<Tag: IdentifierTag>(_ key: String) throws(WireFieldError) -> Identifier<Tag> where Tag.RawValue == UInt32 {
        Identifier(try Self.whole(try required(key), name(key)))
    }

    func optionalID<Tag: IdentifierTag>(_ key: String) throws(WireFieldError) -> Identifier<Tag>?
    where Tag.RawValue == UInt32 {
        guard let value = optional(key) else { return nil }
        return Identifier(try Self.whole(value, name(key)))
    }

    func ids<Tag: IdentifierTag>(_ key: String) throws(WireFieldError) -> [Identifier<Tag>]
    where Tag.RawValue == UInt32 {
        var ids: [Identifier<Tag>] = []
        for (index, element) in try array(key).enumerated() {
            ids.append(Identifier(try Self.whole(element, "\(name(key))[\(index)]")))
        }
        return ids
    }

    func value<Value: WireRepresentable>(_ key: String, as type: Value.Type) throws(WireFieldError) -> Value {
        try Value(wire: try required(key), at: name(key))
    }

    func optionalValue<Value: WireRepresentable>(_ key: String, as type: Value.Type) throws(WireFieldError) -> Value? {
        guard let value = optional(key) else { return nil }
        return try Value(wire: value, at: name(key))
    }

    func values<Value: WireRepresentable>(_ key: String, as type: Value.Type) throws(WireFieldError) -> [Value] {
        var values: [Value] = []
        for (index, element) in try array(key).enumerated() {
            values.append(try Value(wire: element, at: "\(name(key))[\(index)]"))
        }
        return values
    }

    private func mismatch(_ key: String, _ expected: String) -> WireFieldError {
        WireFieldError("\"\(name(key))\" must be \(expected), not \(members[key]?.kindName ?? "absent")")
    }

    /// `name` is only formatted for an error: reading a message names no field that is right.
    static func string(_ value: JSONValue, _ name: @autoclosure () -> String) throws(WireFieldError) -> String {
        guard case .string(let text) = value else {
            throw WireFieldError("\"\(name())\" must be a string, not \(value.kindName)")
        }
        return text
    }

    /// An integer of the type, written without fraction or exponent (the protocol's integers are signed 64-bit:
    /// an unsigned field goes up to 2^63 - 1).
    static func whole<I: FixedWidthInteger>(
        _ value: JSONValue,
        _ name: @autoclosure () -> String
    ) throws(WireFieldError) -> I {
        // JSON text reads into a signed 64-bit integer: nothing above Int.max comes in as one. (Written only for an
        // error: formatting it for every field read cost more than the read.)
        var upper: String {
            I.bitWidth > Int.bitWidth || (I.bitWidth == Int.bitWidth && !I.isSigned) ? "\(Int.max)" : "\(I.max)"
        }
        switch value {
        case .int(let number):
            guard let fitting = I(exactly: number) else {
                throw WireFieldError("\"\(name())\" must be an integer from \(I.min) to \(upper), not \(number)")
            }
            return fitting
        case .double(let number):
            throw WireFieldError(
                "\"\(name())\" must be an integer from \(I.min) to \(upper), without fraction or exponent, not \(number)"
            )
        default:
            throw WireFieldError("\"\(name())\" must be an integer, not \(value.kindName)")
        }
    }
}

extension Identifier where Tag.RawValue == UInt32 {
    /// The id as a JSON number.
    var wireValue: JSONValue { .int(Int(rawValue)) }
}
