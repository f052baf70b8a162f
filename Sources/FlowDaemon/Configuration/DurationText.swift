import Foundation

/// Durations as people write them in flags and configuration files: `7d`, `12h`, `30m`, `45s`, `500ms`; a bare
/// number is seconds.
public enum DurationText {
    /// The duration `text` says, or `nil` when it says none (negative, empty, an unknown unit).
    public static func parse(_ text: String) -> Duration? {
        let units: [(suffix: String, milliseconds: Int64)] = [
            ("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000),
        ]
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        for unit in units where trimmed.hasSuffix(unit.suffix) {
            let number = trimmed.dropLast(unit.suffix.count)
            // "5ms" also ends in "s": only a number in front counts.
            if let value = Int64(number), value >= 0, value <= Int64.max / unit.milliseconds {
                return .milliseconds(value * unit.milliseconds)
            }
        }
        if let seconds = Int64(trimmed), seconds >= 0, seconds <= Int64.max / 1000 {
            return .seconds(seconds)
        }
        return nil
    }

    /// `duration` written as people write it, in the largest unit that divides it: `7d`, `90s`, `250ms`.
    public static func format(_ duration: Duration) -> String {
        let milliseconds = duration.milliseconds
        for (suffix, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        where milliseconds != 0 && milliseconds % size == 0 {
            return "\(milliseconds / size)\(suffix)"
        }
        return milliseconds == 0 ? "0" : "\(milliseconds)ms"
    }
}
