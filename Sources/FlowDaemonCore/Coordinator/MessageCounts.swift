import FlowWire

/// Messages counted by type, with a slot for each type of the protocol and one for messages that could not be read
/// (`invalid`): counting a message, which flowd does for every message in and out, is an increment, not an update
/// of a dictionary keyed by the type's name. It reads and encodes as the map of the counts that are not zero.
public struct MessageCounts: Sendable, Hashable, Codable {
    private static let types = MessageType.allCases
    private static let invalid = "invalid"

    /// The counts, in the order of ``MessageType/allCases``, then `invalid`.
    private var slots = [Int](repeating: 0, count: MessageCounts.types.count + 1)

    public init() {}

    /// Counts a message of this type.
    mutating func count(_ type: MessageType) {
        slots[type.index] += 1
    }

    /// Counts a message that could not be read.
    mutating func countInvalid() {
        slots[Self.types.count] += 1
    }

    /// The count of a type by its name on the wire (`STEP`), or of `invalid`; `nil` when none was counted.
    public subscript(type: String) -> Int? {
        byType[type]
    }

    /// The counts that are not zero, by the type's name on the wire.
    public var byType: [String: Int] {
        var counts: [String: Int] = [:]
        for (index, count) in slots.enumerated() where count > 0 {
            counts[index < Self.types.count ? Self.types[index].rawValue : Self.invalid] = count
        }
        return counts
    }

    public init(from decoder: any Decoder) throws {
        let counts = try [String: Int](from: decoder)
        for (name, count) in counts {
            if let type = MessageType(rawValue: name) {
                slots[type.index] = count
            } else if name == Self.invalid {
                slots[Self.types.count] = count
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try byType.encode(to: encoder)
    }
}
