import FlowCore
import FlowWire
import Foundation
import Histogram

/// What `flowctl stats` counts over one window: steps by stepper and session, their fates, the latency from a
/// step's sending to flowd's decision (when its commands are published), and flowd's message counters.
public struct StatsWindow: Sendable {
    private var stepsByStepper: [String: Int] = [:]
    private var stepsBySession: [String: Int] = [:]
    private var accepted = 0
    private var dropped: [String: Int] = [:]
    /// Milliseconds, in a histogram: a busy window costs no more memory than a quiet one.
    private var latencies = LatencyHistogram()
    private var batches = 0

    public init() {}

    /// Counts an item seen on the inspection stream.
    public mutating func add(_ item: WatchedItem) {
        switch InspectionKind(item.kind) {
        case .stepFate:
            let source = item.fields["source"]?.objectValue ?? [:]
            let stepper =
                source["stepper"]?.stringValue ?? (source["presentable"] != nil ? "(screens)" : "(coordinator)")
            stepsByStepper[stepper, default: 0] += 1
            stepsBySession[item.session ?? "-", default: 0] += 1
            if item.fields["accepted"] == .bool(true) {
                accepted += 1
            } else {
                dropped[item.fields["reason"]?.stringValue ?? "?", default: 0] += 1
            }
            if let sent = item.fields["sentAt"]?.intValue {
                latencies.record(item.sentAt - Int64(sent))
            }
        case .commands:
            batches += 1
        default:
            break
        }
    }

    /// The report over `seconds`, with flowd's counters at the window's start and end.
    public func report(seconds: Double, countersBefore: JSONValue?, countersAfter: JSONValue?) -> StatsReport {
        let seconds = max(seconds, 0.001)
        func rates(_ counts: [String: Int]) -> [String: Double] {
            counts.mapValues { Double($0) / seconds }
        }
        var messages: [String: Double] = [:]
        let before = countersBefore?.objectValue?["messagesIn"]?.objectValue ?? [:]
        for (type, count) in countersAfter?.objectValue?["messagesIn"]?.objectValue ?? [:] {
            let delta = (count.intValue ?? 0) - (before[type]?.intValue ?? 0)
            if delta > 0 {
                messages[type] = Double(delta) / seconds
            }
        }
        let decided = accepted + dropped.values.reduce(0, +)
        return StatsReport(
            seconds: seconds,
            messagesInPerSecond: messages,
            stepsPerSecondByStepper: rates(stepsByStepper),
            stepsPerSecondBySession: rates(stepsBySession),
            batchesPerSecond: Double(batches) / seconds,
            accepted: accepted,
            dropped: dropped,
            acceptance: decided == 0 ? nil : Double(accepted) / Double(decided),
            latency: StatsReport.Latency(latencies)
        )
    }
}

/// One `flowctl stats` report.
public struct StatsReport: Sendable, Codable, Hashable {
    /// Percentiles of the time from a step's sending (its sender's clock) to flowd's decision, in milliseconds.
    public struct Latency: Sendable, Codable, Hashable {
        public var steps: Int
        public var p50: Int64
        public var p90: Int64
        public var p99: Int64
        public var max: Int64

        init?(_ samples: LatencyHistogram) {
            guard samples.count > 0 else { return nil }
            steps = samples.count
            p50 = samples.percentile(50)
            p90 = samples.percentile(90)
            p99 = samples.percentile(99)
            max = samples.max
        }
    }

    public var seconds: Double
    /// Messages flowd received per second, by type (all sessions: flowd counts them globally).
    public var messagesInPerSecond: [String: Double]
    public var stepsPerSecondByStepper: [String: Double]
    public var stepsPerSecondBySession: [String: Double]
    /// Command batches published per second.
    public var batchesPerSecond: Double
    public var accepted: Int
    /// Dropped steps by reason.
    public var dropped: [String: Int]
    /// Accepted steps over decided steps; `nil` when none was decided.
    public var acceptance: Double?
    public var latency: Latency?

    /// The report as text.
    public var lines: [String] {
        func list(_ rates: [String: Double]) -> String {
            rates.isEmpty
                ? "-"
                : rates.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                    .map { "\($0.key) \(Self.rate($0.value))" }.joined(separator: "  ")
        }
        let droppedCount = dropped.values.reduce(0, +)
        var acceptanceLine = acceptance.map { String(format: "%.1f%%", $0 * 100) } ?? "-"
        acceptanceLine += " (\(accepted) accepted, \(droppedCount) dropped"
        if !dropped.isEmpty {
            acceptanceLine +=
                ": " + dropped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        acceptanceLine += ")"
        let latencyLine =
            latency.map { "p50 \($0.p50) ms  p90 \($0.p90) ms  p99 \($0.p99) ms  max \($0.max) ms (\($0.steps) steps)" }
            ?? "-"
        return [
            String(format: "over the last %.1f s (rates per second)", seconds),
            "messages in      " + list(messagesInPerSecond),
            "steps by stepper " + list(stepsPerSecondByStepper),
            "steps by session " + list(stepsPerSecondBySession),
            "command batches  " + Self.rate(batchesPerSecond),
            "acceptance       " + acceptanceLine,
            "step → commands  " + latencyLine,
        ]
    }

    private static func rate(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }
}
