import Glibc

/// flowd's limit of open files: every connection takes one.
public enum FileDescriptorLimit {
    /// Descriptors kept for flowd itself (its sockets' signals, listeners, the state files, the standard streams),
    /// never given to connections.
    static let reserved = 128

    /// Raises the soft limit of open files to the hard one (the system's default soft limit, 1024, is far below
    /// what a daemon with many peers needs; the hard one is what the administrator allows).
    /// - Returns: the soft limit now in force.
    @discardableResult
    public static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 {
                limit = raised
            }
        }
        return current
    }

    /// The soft limit of open files in force.
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(clamping: limit.rlim_cur)
    }

    /// How many connections flowd takes with `limit` open files: all but the reserved ones.
    static func connectionCap(for limit: Int) -> Int {
        max(16, limit - reserved)
    }
}
