import Glibc
import Logging
import Synchronization

/// flowd's log handler: one line per event on standard error, as text or JSON (``LogFormat``). Under journald
/// (systemd's `JOURNAL_STREAM` naming standard error) text lines carry no timestamp, which journald adds, and begin
/// with the event's syslog priority, which journald reads.
public struct DaemonLogHandler: LogHandler {
    /// The level: this handler's own once set, else the shared one (which SIGHUP may change).
    public var logLevel: Logger.Level {
        get { ownLevel ?? sharedLevel.level }
        set { ownLevel = newValue }
    }
    private let sharedLevel: LogLevel
    private var ownLevel: Logger.Level?
    public var metadata: Logger.Metadata = [:]
    private let format: LogFormat
    private let forJournal: Bool

    /// One lock for every handler: lines from several threads never interleave.
    private static let output = Mutex(())

    /// A handler writing `format` at `level` and above.
    /// - Parameters:
    ///   - format: text or JSON.
    ///   - level: the lowest level written.
    ///   - environment: the process's environment, where systemd says whether standard error is the journal.
    public init(format: LogFormat, level: Logger.Level, environment: [String: String]) {
        self.init(format: format, level: LogLevel(level), environment: environment)
    }

    /// A handler writing `format` at the shared `level` and above: changing `level` changes every logger's.
    public init(format: LogFormat, level: LogLevel, environment: [String: String]) {
        self.format = format
        self.sharedLevel = level
        self.forJournal = Self.standardErrorIsJournal(environment)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let explicit = event.metadata {
            merged.merge(explicit) { $1 }
        }
        if let error = event.error {
            merged["error"] = "\(error)"
        }
        var time = timeval()
        gettimeofday(&time, nil)
        let event = LogLine(
            time: time,
            level: event.level,
            message: event.message.description,
            metadata: merged.sorted { $0.key < $1.key }.map { ($0.key, "\($0.value)") },
            source: event.source
        )
        let text = (format == .json ? event.json : event.text(forJournal: forJournal)) + "\n"
        Self.output.withLock { _ in
            let bytes = Array(text.utf8)
            var written = 0
            while written < bytes.count {
                let count = bytes.withUnsafeBytes { write(2, $0.baseAddress! + written, $0.count - written) }
                if count <= 0 {
                    if count < 0 && errno == EINTR { continue }
                    break
                }
                written += count
            }
        }
    }

    /// Whether standard error is the journal: `JOURNAL_STREAM` is `DEVICE:INODE` of the stream systemd connected.
    static func standardErrorIsJournal(_ environment: [String: String]) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        let parts = stream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(2, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
