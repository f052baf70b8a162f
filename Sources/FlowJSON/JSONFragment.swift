/// JSON text written already — by a ``JSONObjectWriter``, member by member — placed in an encoding as it is. FlowJSON's
/// encoders copy it (a long array of small values then costs its text, not `Codable`'s containers for each value);
/// any other encoder gets the value the text reads as.
///
/// The text must be one JSON value: whoever makes a fragment answers for it (nothing checks it on the way out).
public struct JSONFragment: Sendable, Hashable, Encodable {
    /// The text, compact UTF-8 JSON.
    public let text: [UInt8]

    /// A fragment of one JSON value's text.
    public init(text: [UInt8]) {
        self.text = text
    }

    /// The value the text reads as, through any encoder (FlowJSON's copy the text instead).
    public func encode(to encoder: any Encoder) throws {
        try JSONValue(parsing: text).encode(to: encoder)
    }
}
