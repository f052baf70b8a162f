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

    /// Bytes as they are. Most are short (a member's name, an id): up to 16 are copied as two words that may
    /// overlap, without a call to `memcpy`.
    @inlinable
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        let length = bytes.count
        let target = UnsafeMutableRawPointer(start + count)
        let from = UnsafeRawPointer(source)
        if length >= 8 && length <= 16 {
            target.storeBytes(of: from.loadUnaligned(as: UInt64.self), as: UInt64.self)
            target.storeBytes(
                of: from.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self),
                toByteOffset: length - 8,
                as: UInt64.self
            )
        } else if length >= 4 && length < 8 {
            target.storeBytes(of: from.loadUnaligned(as: UInt32.self), as: UInt32.self)
            target.storeBytes(
                of: from.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self),
                toByteOffset: length - 4,
                as: UInt32.self
            )
        } else {
            (start + count).initialize(from: source, count: length)
        }
        count += length
    }

    /// A member's name, quoted, and its colon: `"name":`. The name is a literal with nothing to escape.
    @inlinable @inline(__always)
    mutating func put(name: StaticString) {
        put(UInt8(ascii: "\""))
        put(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
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

    /// The digits of a number, written from the last into their place, two at a time from a table of the hundred
    /// pairs (the wire's ids and times have 13 to 16 digits: half as many divisions of the whole number).
    @usableFromInline
    mutating func put(digitsOf value: UInt64) {
        guard value >= 10 else {
            put(UInt8(ascii: "0") + UInt8(value))
            return
        }
        let digits = Self.digitCount(value)
        let pairs = Self.digitPairs.utf8Start
        var position = count + digits
        var rest = value
        while rest >= 100 {
            let pair = Int(rest % 100) &* 2
            rest /= 100
            position -= 2
            start[position] = pairs[pair]
            start[position + 1] = pairs[pair + 1]
        }
        if rest >= 10 {
            let pair = Int(rest) &* 2
            start[position - 2] = pairs[pair]
            start[position - 1] = pairs[pair + 1]
        } else {
            start[position - 1] = UInt8(ascii: "0") + UInt8(rest)
        }
        count += digits
    }

    /// How many decimal digits a number has (1 to 20).
    @usableFromInline
    static func digitCount(_ value: UInt64) -> Int {
        var digits = 1
        var rest = value
        if rest >= 10_000_000_000_000_000 {
            digits += 16
            rest /= 10_000_000_000_000_000
        }
        if rest >= 100_000_000 {
            digits += 8
            rest /= 100_000_000
        }
        if rest >= 10_000 {
            digits += 4
            rest /= 10_000
        }
        if rest >= 100 {
            digits += 2
            rest /= 100
        }
        if rest >= 10 {
            digits += 1
        }
        return digits
    }

    /// "00", "01", ... "99", one after another.
    @usableFromInline
    static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """
}
