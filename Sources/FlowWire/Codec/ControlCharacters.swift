/// Control characters in text from the bus: C0 (U+0000–U+001F), DEL and C1 (U+0080–U+009F). flowd refuses them in
/// identifiers (the specification's R25); its logs and flowctl show them escaped wherever else they occur, so that
/// none reaches a log or a terminal as an escape sequence or a forged line.
public enum ControlCharacters {
    /// Whether `scalar` is a control character.
    public static func contains(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The first control character of `text`, if it holds one.
    public static func first(in text: String) -> Unicode.Scalar? {
        // Printable ASCII, as identifiers nearly always are, holds none: read byte by byte (C1 characters are two
        // bytes in UTF-8, the first of them not ASCII).
        let printable = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        }
        if printable == true {
            return nil
        }
        return text.unicodeScalars.first(where: contains)
    }

    /// `text` with its control characters escaped (`\n`, `\r`, `\t`, else `\u{1b}`), cut after `limit` characters
    /// with its length in bytes said (`…(300 bytes)`).
    /// - Parameters:
    ///   - text: the text as it came.
    ///   - limit: the most characters kept.
    public static func escaped(_ text: String, limit: Int = .max) -> String {
        guard text.count > limit || first(in: text) != nil else { return text }
        var result = ""
        var count = 0
        for character in text {
            if count == limit {
                result += "…(\(text.utf8.count) bytes)"
                break
            }
            count += 1
            for scalar in character.unicodeScalars {
                switch scalar {
                case "\n": result += "\\n"
                case "\r": result += "\\r"
                case "\t": result += "\\t"
                case _ where contains(scalar): result += "\\u{\(String(scalar.value, radix: 16))}"
                default: result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
