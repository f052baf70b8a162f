/// Writes a piece of JSON text straight into a ``TextBuffer``, in room reserved for it beforehand: a member written
/// as one piece (`,"name":12`) is checked for room once, not byte by byte. The writer composes what it knows the
/// size of — a member's name, a number, a string with nothing to escape — and writes the rest byte by byte.
@usableFromInline
struct TextComposer {
    /// The most a whole number takes: a sign and 20 digits.
    @usableFromInline static let longestNumber = 21

    @usableFromInline let start: UnsafeMutablePointer<UInt8>
    @usableFromInline var count = 0

    @inlinable
    init(start: UnsafeMutablePointer<UInt8>) {
        self.start = start
    }

    @inlinable
    mutating func put(_ byte: UInt8) {
        start[count] = byte
        count += 1
    }

    @inlinable
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        (start + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    /// A member's name, quoted, and its colon: `"name":`. The name is a literal with nothing to escape.
    @inlinable
    mutating func put(name: StaticString) {
        put(UInt8(ascii: "\""))
        name.withUTF8Buffer { put($0) }
        put(UInt8(ascii: "\""))
        put(UInt8(ascii: ":"))
    }

    /// A whole number in decimal.
    @inlinable
    mutating func put(_ value: Int) {
        if value < 0 {
            put(UInt8(ascii: "-"))
        }
        // The magnitude of Int.min does not fit in an Int, it does in a UInt64.
        put(digitsOf: UInt64(value.magnitude))
    }

    /// The digits of a number, written from the last into their place, two at a time (the wire's ids and times have
    /// 13 to 16: half as many divisions of the whole number).
    @usableFromInline
    mutating func put(digitsOf value: UInt64) {
        guard value >= 10 else {
            put(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var digits = 1
        var rest = value
        while rest >= 100 {
            digits += 2
            rest /= 100
        }
        if rest >= 10 {
            digits += 1
        }
        var position = count + digits
        rest = value
        while rest >= 100 {
            let pair = UInt8(truncatingIfNeeded: rest % 100)
            rest /= 100
            position -= 2
            start[position] = UInt8(ascii: "0") + pair / 10
            start[position + 1] = UInt8(ascii: "0") + pair % 10
        }
        while rest > 0 {
            position -= 1
            start[position] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        count += digits
    }
}
