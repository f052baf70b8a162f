/// A typed identifier: a raw value (a string or a number) that cannot be mixed up with another kind of id.
///
/// It encodes as its raw value alone, so ids read naturally in JSON and YAML.
public struct Identifier<Tag: IdentifierTag>: Sendable, Hashable, Codable, Comparable, CustomStringConvertible,
    CodingKeyRepresentable
{
    /// The raw value.
    public let rawValue: Tag.RawValue

    /// Creates an id from its raw value.
    public init(_ rawValue: Tag.RawValue) {
        self.rawValue = rawValue
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Tag.RawValue.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    public var description: String {
        Tag.prefix + "\(rawValue)"
    }

    /// As a dictionary key, an id is its raw value's text, so maps keyed by ids encode as JSON objects
    /// (with sorted keys, the same state always encodes to the same bytes).
    public var codingKey: any CodingKey {
        IdentifierCodingKey(stringValue: rawValue.description)
    }

    public init?<T: CodingKey>(codingKey: T) {
        guard let rawValue = Tag.RawValue(codingKey.stringValue) else {
            return nil
        }
        self.init(rawValue)
    }
}

private struct IdentifierCodingKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Identifier: ExpressibleByStringLiteral, ExpressibleByUnicodeScalarLiteral,
    ExpressibleByExtendedGraphemeClusterLiteral
where Tag.RawValue == String {
    public init(stringLiteral value: String) {
        self.init(value)
    }
}

/// What an ``Identifier`` identifies: its raw value's type and the prefix it prints with.
public protocol IdentifierTag: Sendable {
    associatedtype RawValue: Sendable, Hashable, Codable, Comparable, LosslessStringConvertible
    /// Printed before the raw value (`f` for flows: `f3`).
    static var prefix: String { get }
    /// The hash of a raw value under a dictionary's seed. Numbered ids (flows, presentables, step tokens) are
    /// allocated by the engine, never chosen by a peer, so a seeded mix of the number does (a dozen instructions
    /// where SipHash takes a few hundred: a step looks up some thirty of them); names keep the standard hash.
    static func hash(_ rawValue: RawValue, seed: Int) -> Int
}

extension IdentifierTag {
    public static func hash(_ rawValue: RawValue, seed: Int) -> Int {
        rawValue._rawHashValue(seed: seed)
    }
}

extension IdentifierTag where RawValue: FixedWidthInteger {
    public static func hash(_ rawValue: RawValue, seed: Int) -> Int {
        // MurmurHash3's 64-bit finalizer of the number and the seed: every bit of the number moves every bit of
        // the hash, which a dictionary's buckets need.
        var mixed = UInt64(truncatingIfNeeded: rawValue) ^ UInt64(UInt(bitPattern: seed))
        mixed ^= mixed >> 33
        mixed &*= 0xff51_afd7_ed55_8ccd
        mixed ^= mixed >> 33
        mixed &*= 0xc4ce_b9fe_1a85_ec53
        mixed ^= mixed >> 33
        return Int(truncatingIfNeeded: mixed)
    }
}

extension Identifier {
    /// The hash dictionaries and sets use: the tag's (see ``IdentifierTag/hash(_:seed:)``).
    public func _rawHashValue(seed: Int) -> Int {
        Tag.hash(rawValue, seed: seed)
    }
}

/// Identifies sessions.
public enum SessionTag: IdentifierTag {
    public typealias RawValue = String
    public static var prefix: String { "" }
}

/// Identifies presenters.
public enum PresenterTag: IdentifierTag {
    public typealias RawValue = String
    public static var prefix: String { "" }
}

/// Identifies flows.
public enum FlowTag: IdentifierTag {
    public typealias RawValue = UInt32
    public static var prefix: String { "f" }
}

/// Identifies presentables.
public enum PresentableTag: IdentifierTag {
    public typealias RawValue = UInt32
    public static var prefix: String { "p" }
}

/// Identifies steps taken in by the engine.
public enum StepTokenTag: IdentifierTag {
    public typealias RawValue = UInt64
    public static var prefix: String { "t" }
}

/// A session: one independent flow tree (one kiosk, one vehicle, one user's app).
public typealias SessionID = Identifier<SessionTag>

/// A presenter process of a session (a display): each has its own window and its own command stream.
public typealias PresenterID = Identifier<PresenterTag>

/// A running flow in a session, allocated by the engine (`f1`, `f2`...).
public typealias FlowID = Identifier<FlowTag>

/// A presentable (a screen or a container) of a session, allocated by the engine (`p1`, `p2`...). Commands
/// name presentables by these ids, and presenters report visibility with them.
public typealias PresentableID = Identifier<PresentableTag>

/// A step the engine has taken in, so that its fate can be reported later (`t1`, `t2`...).
public typealias StepToken = Identifier<StepTokenTag>

extension Identifier where Tag == PresenterTag {
    /// The presenter a session's root flow is shown on unless configured otherwise.
    public static var main: PresenterID { "main" }
}
