/// A word of the protocol with a fixed meaning (an ERROR's code, an inspection event's kind): written on the wire
/// as the bare string, the same in every language, and typed in Swift so that no module matches string literals.
public protocol WireWord: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible
where RawValue == String {
    /// The word from its text.
    init(_ rawValue: String)
}

extension WireWord {
    /// The word from its text.
    public init(rawValue: String) { self.init(rawValue) }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}
