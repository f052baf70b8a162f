import Logging
import Synchronization

/// The lowest level logged, shared by every ``DaemonLogHandler`` of a process, so that a reload changes it for every
/// logger at once. Read on every log call, even one below the level: an atomic load, no lock.
public final class LogLevel: Sendable {
    private let current: Atomic<Int>

    /// A level starting at `level`.
    public init(_ level: Logger.Level) {
        current = Atomic(Self.levels.firstIndex(of: level) ?? 0)
    }

    /// The level now.
    public var level: Logger.Level {
        get { Self.levels[current.load(ordering: .relaxed)] }
        set { current.store(Self.levels.firstIndex(of: newValue) ?? 0, ordering: .relaxed) }
    }

    private static let levels = Logger.Level.allCases
}
