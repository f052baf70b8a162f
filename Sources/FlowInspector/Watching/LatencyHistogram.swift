import Histogram

/// Latencies (whole units: milliseconds for `stats`, microseconds for `bench`) in an HdrHistogram: percentiles to
/// three significant digits in fixed memory, however many are recorded. Values beyond an hour's worth of
/// microseconds count as that.
public struct LatencyHistogram: Sendable {
    private var histogram = Histogram<UInt64>(
        highestTrackableValue: Self.highest,
        numberOfSignificantValueDigits: .three
    )
    private static let highest: UInt64 = 3_600_000_000

    /// An empty histogram.
    public init() {}

    /// How many values were recorded.
    public var count: Int { Int(histogram.totalCount) }

    /// The largest value recorded (to the histogram's precision).
    public var max: Int64 { Int64(histogram.max) }

    /// Records a value; a negative one (clocks apart) counts as 0.
    public mutating func record(_ value: Int64) {
        _ = histogram.record(Swift.min(UInt64(Swift.max(0, value)), Self.highest))
    }

    /// Adds what `other` recorded.
    public mutating func merge(_ other: LatencyHistogram) {
        for recorded in other.histogram.recordedValues() {
            _ = histogram.record(recorded.value, count: recorded.count)
        }
    }

    /// The value `percentile` percent of the values are at or below (`percentile` from 0 to 100).
    public func percentile(_ percentile: Double) -> Int64 {
        Int64(histogram.valueAtPercentile(percentile))
    }
}
