/// Writes a JSON array of objects element by element, straight as compact text: for long lists written often (a
/// session's remembered outcomes in each snapshot, the events of an inspection batch), where each element written
/// apart and copied onto the list would cost an allocation and a copy of its own.
///
/// ```swift
/// var list = JSONArrayWriter()
/// for outcome in outcomes {
///     list.object { $0.member("sequence", outcome.sequence) }
/// }
/// let text = list.finished()   // [{"sequence":4},{"sequence":5}]
/// ```
public struct JSONArrayWriter: Sendable {
    /// The text so far, written by one object writer that every element reuses.
    @usableFromInline var text: JSONObjectWriter
    /// How many elements are written.
    public var count: Int { written }
    @usableFromInline var written = 0

    /// Starts an array; `capacity`: the room to keep for its text at first.
    public init(capacity: Int = 256) {
        text = JSONObjectWriter(opening: UInt8(ascii: "["), capacity: capacity)
    }

    /// Appends an object, its members given by `members`.
    @inlinable
    public mutating func object(_ members: (inout JSONObjectWriter) -> Void) {
        if written > 0 {
            text.writer.bytes.append(UInt8(ascii: ","))
        }
        written += 1
        text.nestedObject(members)
    }

    /// The array's text, closed.
    public consuming func finished() -> [UInt8] {
        text.writer.bytes.append(UInt8(ascii: "]"))
        return text.writer.bytes.array
    }
}
