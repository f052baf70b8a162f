extension DaemonConfiguration {
    /// Checks every setting against the range flowd works in: a value outside (a zero message size, a rate or a
    /// timeout so large that arithmetic with it overflows) is refused with its name and range, never used.
    /// - Parameter naming: how a setting is named, from its file key (by default with its flag).
    /// - Throws: ``ConfigurationError`` naming the first setting out of range.
    public func checkRanges(naming: (String) -> String = { DaemonSetting.named($0)?.description ?? $0 }) throws {
        let second: Int64 = 1000
        let durations: [(String, Duration, ClosedRange<Int64>)] = [
            ("heartbeatInterval", heartbeatInterval, 10...3600 * second),
            ("heartbeatTimeout", heartbeatTimeout, 20...24 * 3600 * second),
            ("guardTimeout", engine.guardTimeout, 1...3600 * second),
            ("deepLinkWait", engine.deepLinkWait, 1...24 * 3600 * second),
            ("inspectionDelay", inspectionBatchDelay, 0...10 * second),
            ("snapshotInterval", snapshotInterval, 1...30 * 24 * 3600 * second),
            ("storeRetryWindow", storeRetryWindow, 1 * second...24 * 3600 * second),
            ("idleSessionExpiry", idleSessionExpiry ?? .zero, 0...3650 * 24 * 3600 * second),
        ]
        for (name, value, range) in durations where !range.contains(value.milliseconds) {
            throw ConfigurationError(
                "\(naming(name)) must be from \(range.lowerBound) to \(range.upperBound) milliseconds, not \(value.milliseconds)"
            )
        }
        let counts: [(String, Int, ClosedRange<Int>)] = [
            ("maxMessageSize", maxMessageSize, 1024...(256 << 20)),
            ("peerMessageRate", peerMessageRate, 0...10_000_000),
            ("peerByteRate", peerByteRate, 0...(1 << 40)),
            ("maxSessions", maxSessions, 1...100_000_000),
            ("sessionsPerPeerPerMinute", sessionsPerPeerPerMinute, 1...10_000_000),
            ("snapshotEvery", snapshotEvery, 1...1_000_000_000),
            ("sendQueueLimit", sendQueueLimit, 10...1_000_000),
            ("maxPresentables", engine.maxPresentables, 10...1_000_000),
            ("maxSessionDataBytes", engine.maxSessionDataBytes, 1024...(256 << 20)),
            ("maxSteppersPerSession", maxSteppersPerSession, 1...1_000_000),
        ]
        for (name, value, range) in counts where !range.contains(value) {
            throw ConfigurationError(
                "\(naming(name)) must be from \(range.lowerBound) to \(range.upperBound), not \(value)"
            )
        }
    }
}
