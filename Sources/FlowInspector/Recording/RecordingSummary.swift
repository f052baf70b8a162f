import Foundation

/// What a recording holds, as `flowctl info` prints it: when and how long, which sessions, how many inputs of each
/// kind and from each sender, and what flowd did with them.
public struct RecordingSummary: Sendable, Hashable, Codable {
    /// When recording started (ms since 1970).
    public var startedAt: Int64
    /// The version of the flowd recorded, if known.
    public var flowd: String?
    /// From the first input to the last, in milliseconds.
    public var duration: Int64
    /// The sessions, in order of first appearance.
    public var sessions: [String]
    /// Every input.
    public var inputs: Int
    /// Inputs by kind (`step`, `visibility`...).
    public var byKind: [String: Int]
    /// Inputs by sender: `stepper NAME`, `presenter NAME`, or unnamed (deep links and session data, whose sender is
    /// not recorded).
    public var bySender: [String: Int]
    /// Steps by fate: `accepted`, `dropped: REASON`, `unknown` (recorded before fates were, or still waiting).
    public var stepFates: [String: Int]
    /// Inputs flowd refused when they were recorded (left out by a replay).
    public var refused: Int

    /// The summary of `recording`.
    public init(_ recording: Recording) {
        let actions = recording.actions
        startedAt = recording.header.startedAt
        flowd = recording.header.flowd
        duration = (actions.map(\.at).max() ?? 0) - (actions.map(\.at).min() ?? 0)
        sessions = recording.sessions
        inputs = actions.count
        byKind = actions.reduce(into: [:]) { $0[$1.kind.rawValue, default: 0] += 1 }
        bySender = actions.reduce(into: [:]) { counts, action in
            let sender =
                action.stepper.map { "stepper \($0)" } ?? action.presenter.map { "presenter \($0)" }
                ?? "unnamed (deep links, session data)"
            counts[sender, default: 0] += 1
        }
        stepFates = actions.filter { $0.kind == .step }.reduce(into: [:]) { counts, action in
            let fate =
                switch action.fate {
                case .accepted: "accepted"
                case .dropped: "dropped: \(action.reason ?? "?")"
                case .refused: "refused"
                case nil: "unknown"
                }
            counts[fate, default: 0] += 1
        }
        refused = actions.filter { $0.fate == .refused }.count
    }

    /// The summary as lines of text, aligned.
    public var lines: [String] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let started = formatter.string(from: Date(timeIntervalSince1970: Double(startedAt) / 1000))
        var lines = [
            "recorded:  \(started)\(flowd.map { " from flowd \($0)" } ?? "")",
            "duration:  \(String(format: "%.3f", Double(duration) / 1000)) s",
            "sessions:  \(sessions.isEmpty ? "none" : sessions.joined(separator: ", "))",
            "inputs:    \(inputs)\(refused > 0 ? " (\(refused) refused by flowd, left out when replayed)" : "")",
        ]
        lines += Self.table("by kind", byKind)
        lines += Self.table("by sender", bySender)
        lines += Self.table("steps", stepFates)
        return lines
    }

    private static func table(_ title: String, _ counts: [String: Int]) -> [String] {
        guard !counts.isEmpty else { return [] }
        let width = counts.keys.map(\.count).max() ?? 0
        return ["\(title):"]
            + counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { key, count in
                "  \(key.padding(toLength: width, withPad: " ", startingAt: 0))  \(count)"
            }
    }
}
