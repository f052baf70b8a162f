import FlowWire

/// The words of `flowctl watch`: the label that heads each line (`step`, `navigate`, `flow`...) and the kinds of
/// event behind it (`stepFate`, `willNavigate` and `didNavigate`, ...). `--type` takes either, in any case.
public enum WatchVocabulary {
    /// The label of each kind's lines.
    public static let labels: [InspectionKind: String] = [
        .stepFate: "step", .stepReceived: "received", .deepLinkReceived: "deeplink", .deepLinkWaiting: "deeplink",
        .willNavigate: "navigate", .didNavigate: "navigate", .commands: "commands", .adapted: "adapted",
        .commandRejected: "rejected", .flowStarted: "flow", .flowReady: "flow", .flowEnded: "flow",
        .forwardDroppedAtRoot: "flow", .visibilityChanged: "visibility", .visibilityReported: "reported",
        .sessionStarted: "session", .sessionEnded: "session", .sessionData: "data", .guardAsked: "guard",
        .guardAnswered: "guard", .guardMissing: "guard", .registered: "peer", .unregistered: "peer", .error: "error",
    ]

    /// The kinds a word names: a label (every kind whose lines it heads) or a kind's own name; case does not
    /// matter. `nil` for a word that is neither.
    public static func kinds(for word: String) -> Set<String>? {
        let lowered = word.lowercased()
        let byLabel = Set(labels.filter { $0.value == lowered }.map(\.key.rawValue))
        if !byLabel.isEmpty {
            return byLabel
        }
        return WatchFilter.allKinds.first { $0.lowercased() == lowered }.map { [$0] }
    }

    /// The labels, in the order of a session's life, then the kinds, for help texts and errors.
    public static var words: String {
        let order = [
            "session", "peer", "step", "received", "deeplink", "adapted", "navigate", "commands", "rejected", "flow",
            "visibility", "reported", "data", "guard", "error",
        ]
        return order.joined(separator: ", ") + " (or a kind: " + WatchFilter.allKinds.sorted().joined(separator: ", ")
            + ")"
    }
}
