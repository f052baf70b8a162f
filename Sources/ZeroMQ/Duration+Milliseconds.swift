extension Duration {
    /// The duration in whole milliseconds, rounded up so that a non-zero duration never becomes zero,
    /// and clamped to what a C `int` holds.
    var clampedMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) {
            return 0
        }
        let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
        let (wholeMilliseconds, remainder) = attoseconds.quotientAndRemainder(dividingBy: attosecondsPerMillisecond)
        let (fromSeconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow {
            return Int32.max
        }
        let total = fromSeconds + wholeMilliseconds + (remainder > 0 ? 1 : 0)
        return Int32(clamping: total)
    }

    /// A timeout for libzmq: milliseconds, with `nil` meaning "wait forever" (-1).
    static func libzmqTimeout(_ timeout: Duration?) -> Int32 {
        timeout.map(\.clampedMilliseconds) ?? -1
    }
}
