/// How flowd writes its log lines to standard error.
public enum LogFormat: String, Sendable, CaseIterable {
    /// One line per event: a UTC timestamp with milliseconds (none under journald, which stamps lines itself),
    /// the level, the message, then `key=value` pairs, values quoted when they hold spaces, quotes or `=`.
    case text
    /// One JSON object per line: `time`, `level`, `message`, `source` and every metadata key.
    case json
}
