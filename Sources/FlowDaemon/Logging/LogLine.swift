import FlowWire
import Glibc
import Logging

/// The pieces of a log line, written in either ``LogFormat``: control characters are escaped (a message that
/// holds a newline stays on one line) and metadata values are shortened, so a peer's text can neither forge a
/// line nor flood the log.
struct LogLine {
    /// The longest metadata value written, in characters.
    static let valueLimit = 160
    /// The longest message written, in characters.
    static let messageLimit = 4096

    var time: timeval
    var level: Logger.Level
    var message: String
    var metadata: [(key: String, value: String)]
    var source: String

    /// `text` with control characters escaped, cut at `limit` characters (saying how long it was).
    static func escaped(_ text: String, limit: Int) -> String {
        ControlCharacters.escaped(text, limit: limit)
    }

    /// A value as `key=value` writes it: quoted when it is empty or holds a space, a quote, `=`, a backslash or a
    /// control character (inside the quotes, `\\`, `\"` and `\n` stand for a backslash, a quote, a newline).
    static func textValue(_ value: String) -> String {
        let plain =
            !value.isEmpty
            && !value.unicodeScalars.contains {
                $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\\" || ControlCharacters.contains($0)
            }
        guard !plain else { return escaped(value, limit: valueLimit) }
        let inner = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"" + escaped(inner, limit: valueLimit) + "\""
    }

    /// `2026-11-24T07:13:26.123Z`.
    var timestamp: String {
        var seconds = time.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milliseconds = Int(time.tv_usec) / 1000
        let millis =
            milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
            + "\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millis)Z"
    }

    /// The text line: `TIME LEVEL MESSAGE key=value...`; under journald `<PRIORITY>MESSAGE key=value...` (journald
    /// stamps the time and reads the priority).
    func text(forJournal: Bool) -> String {
        var line = forJournal ? "<\(Self.syslogPriority(level))>" : "\(timestamp) \(level) "
        line += Self.escaped(message, limit: Self.messageLimit)
        for (key, value) in metadata {
            line += " \(Self.escaped(key, limit: 64))=\(Self.textValue(value))"
        }
        return line
    }

    /// The JSON line: `{"time":…,"level":…,"message":…,"source":…, metadata…}`; a metadata key that is one of
    /// those four is written `meta.KEY`.
    var json: String {
        var line = "{\"time\":\"\(timestamp)\",\"level\":\"\(level)\",\"message\":"
        line += Self.jsonString(String(message.prefix(Self.messageLimit)))
        line += ",\"source\":" + Self.jsonString(source)
        for (key, value) in metadata {
            let name = ["time", "level", "message", "source"].contains(key) ? "meta.\(key)" : key
            line += "," + Self.jsonString(name) + ":" + Self.jsonString(Self.shortened(value))
        }
        return line + "}"
    }

    private static func shortened(_ value: String) -> String {
        value.count > valueLimit ? "\(value.prefix(valueLimit))…(\(value.utf8.count) bytes)" : value
    }

    /// A JSON string literal (RFC 8259: quotes, backslashes and control characters escaped, DEL too, so that it is
    /// also a YAML double-quoted scalar, as `flowd config` writes them).
    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// The syslog priority journald reads from a `<N>` prefix.
    static func syslogPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
