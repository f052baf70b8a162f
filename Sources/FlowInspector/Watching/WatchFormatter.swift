import FlowCore
import FlowWire
import Foundation

/// Writes watched items as `flowctl watch` shows them: one line each, readable, optionally coloured, or one JSON
/// object per line.
public struct WatchFormatter: Sendable {
    /// How time is shown at the start of a line.
    public enum Clock: String, Sendable, CaseIterable {
        /// Local time of day, to the millisecond.
        case local
        /// ISO 8601 in UTC.
        case utc
        /// No time.
        case none
    }

    /// Whether to colour the output with ANSI escapes.
    public var colored: Bool
    public var clock: Clock

    public init(colored: Bool, clock: Clock = .local) {
        self.colored = colored
        self.clock = clock
    }

    /// The item as a line of text.
    public func line(_ item: WatchedItem, names: WatchNames) -> String {
        let item = item.terminalSafe
        let (label, color, text) = describe(item, names: names)
        var parts: [String] = []
        if let time = time(item.sentAt) {
            parts.append(paint(time, .dim))
        }
        parts.append(pad(item.session ?? "-", 10))
        parts.append(paint(pad(label, 10), color))
        parts.append(text)
        return parts.joined(separator: " ")
    }

    /// A dropped step in one line: time, step, source and reason (what `flowctl explain` heads each drop with).
    public func dropSummary(_ item: WatchedItem, names: WatchNames) -> String {
        let item = item.terminalSafe
        let fields = item.fields
        let step = fields["step"].map(Self.step) ?? "?"
        let source = Self.source(fields["source"]) { value in
            guard let id = value?.intValue else { return "?" }
            return names.screenName(id, session: item.session).map { "p\(id) \($0)" } ?? "p\(id)"
        }
        let time = self.time(item.sentAt).map { paint($0, .dim) + " " } ?? ""
        return time + "\(step) from \(source): " + paint("dropped (\(fields["reason"]?.stringValue ?? "?"))", .red)
    }

    /// The item as one JSON object (UTF-8): `{"fields", "kind", "sentAt", "session"}`.
    public func json(_ item: WatchedItem) -> [UInt8] {
        item.jsonText
    }

    // MARK: Describing

    enum Color: String {
        case red = "31"
        case green = "32"
        case yellow = "33"
        case blue = "34"
        case magenta = "35"
        case cyan = "36"
        case dim = "2"
        case plain = "0"
    }

    private func describe(_ item: WatchedItem, names: WatchNames) -> (String, Color, String) {
        let fields = item.fields
        let session = item.session
        func flow(_ key: String = "flow") -> String {
            guard let id = fields[key]?.intValue else { return "?" }
            return names.flowName(id, session: session).map { "f\(id) \($0)" } ?? "f\(id)"
        }
        func screen(_ value: JSONValue?) -> String {
            guard let id = value?.intValue else { return "?" }
            return names.screenName(id, session: session).map { "p\(id) \($0)" } ?? "p\(id)"
        }
        let step = fields["step"].map(Self.step) ?? "?"
        switch InspectionKind(item.kind) {
        case .stepFate:
            let source = Self.source(fields["source"], screen: screen)
            if fields["accepted"] == .bool(true) {
                let flows = (fields["flows"]?.arrayValue ?? []).compactMap(\.intValue).map { id in
                    names.flowName(id, session: session).map { "f\(id) \($0)" } ?? "f\(id)"
                }
                return ("step", .green, "\(step) from \(source) → accepted by \(flows.joined(separator: ", "))")
            }
            let reason = fields["reason"]?.stringValue ?? "dropped"
            let explanation = fields["explanation"]?.stringValue.map { ": \($0)" } ?? ""
            return ("step", .red, "\(step) from \(source) → " + paint("dropped (\(reason))", .red) + explanation)
        case .stepReceived:
            return ("received", .dim, "\(step) from \(Self.source(fields["source"], screen: screen))")
        case .deepLinkReceived:
            let path = (fields["path"]?.arrayValue ?? []).map(Self.step).joined(separator: " > ")
            return ("deeplink", .cyan, path)
        case .deepLinkWaiting:
            return ("deeplink", .yellow, "waits until the session is ready")
        case .willNavigate:
            return ("navigate", .dim, "\(flow()) will navigate to \(step)")
        case .didNavigate:
            let contributors = fields["contributors"]?.stringValue ?? ""
            return ("navigate", .cyan, "\(flow()) ▸ \(step) → \(contributors)")
        case .commands:
            let presenter = fields["presenter"]?.stringValue ?? "?"
            let sequence = fields["sequence"]?.intValue ?? 0
            let commands = (fields["commands"]?.arrayValue ?? []).map { Self.command($0, screen: screen) }
            return ("commands", .blue, "\(presenter) #\(sequence): " + commands.joined(separator: "; "))
        case .adapted:
            return (
                "adapted", .yellow,
                "\(flow()) adapted \(fields["from"].map(Self.step) ?? "?") into \(fields["to"].map(Self.step) ?? "?")"
            )
        case .commandRejected:
            return (
                "rejected", .red,
                "\(flow()): \(fields["operation"]?.stringValue ?? "?"): \(fields["reason"]?.stringValue ?? "")"
            )
        case .flowStarted:
            let parent = fields["parent"]?.intValue.map { id in
                " in " + (names.flowName(id, session: session).map { "f\(id) \($0)" } ?? "f\(id)")
            }
            return ("flow", .magenta, "started \(flow())\(parent ?? "")")
        case .flowReady:
            return ("flow", .dim, "\(flow()) is ready")
        case .flowEnded:
            return ("flow", .magenta, "ended \(flow()) (\(fields["reason"]?.stringValue ?? ""))")
        case .forwardDroppedAtRoot:
            return ("flow", .yellow, "\(flow()) ended with \(step) at the root: dropped, the root keeps running")
        case .visibilityChanged:
            let visibility = fields["visibility"]?.stringValue ?? "?"
            let color: Color = visibility == "visible" ? .green : visibility == "dismissed" ? .magenta : .yellow
            return ("visibility", color, "\(screen(fields["presentable"])) \(visibility)")
        case .visibilityReported:
            let screens = (fields["presentables"]?.arrayValue ?? []).map { screen($0) }.joined(separator: ", ")
            return (
                "reported", .dim,
                "\(fields["presenter"]?.stringValue ?? "?"): \(screens) \(fields["visibility"]?.stringValue ?? "?")"
            )
        case .sessionStarted:
            return ("session", .magenta, "started (root flow \(fields["name"]?.stringValue ?? "?"))")
        case .sessionEnded:
            return ("session", .magenta, "ended")
        case .sessionData:
            return ("data", .yellow, "\(fields["key"]?.stringValue ?? "?") = \(fields["value"] ?? .null)")
        case .guardAsked:
            return (
                "guard", .yellow,
                "asked \(fields["guard"]?.stringValue ?? "?") about \(fields["subject"]?.stringValue ?? "?") for \(step)"
            )
        case .guardAnswered:
            let answer =
                fields["timedOut"] == .bool(true)
                ? "no answer in time: refused" : fields["allowed"] == .bool(true) ? "allowed" : "refused"
            return (
                "guard", fields["allowed"] == .bool(true) ? .green : .red,
                "question \(fields["question"]?.intValue ?? 0): \(answer)"
            )
        case .guardMissing:
            return ("guard", .red, "no guard named \(fields["guard"]?.stringValue ?? "?") is connected")
        case .registered:
            return (
                "peer", .dim,
                "\(fields["role"]?.stringValue ?? "?") \(fields["name"]?.stringValue ?? "?") registered (\(fields["peer"]?.stringValue ?? "?"))"
            )
        case .unregistered:
            return (
                "peer", .yellow,
                "\(fields["role"]?.stringValue ?? "peer") \(fields["name"]?.stringValue ?? "?") left: \(fields["reason"]?.stringValue ?? "")"
            )
        case .error:
            return (
                "error", .red,
                "\(fields["peer"]?.stringValue ?? "?"): \(fields["code"]?.stringValue ?? "?"): \(fields["message"]?.stringValue ?? "")"
            )
        default:
            return (item.kind, .plain, JSONValue.object(fields).description)
        }
    }

    private static func step(_ value: JSONValue) -> String {
        let object = value.objectValue ?? [:]
        let name = object["name"]?.stringValue ?? "?"
        guard let parameters = object["parameters"]?.objectValue, !parameters.isEmpty else { return name }
        return name + " " + JSONValue.object(parameters).description
    }

    private static func source(_ value: JSONValue?, screen: (JSONValue?) -> String) -> String {
        let object = value?.objectValue ?? [:]
        if let stepper = object["stepper"]?.stringValue {
            return "stepper \(stepper)"
        }
        if let presentable = object["presentable"] {
            return "screen \(screen(presentable))"
        }
        return "the coordinator"
    }

    private static func command(_ value: JSONValue, screen: (JSONValue?) -> String) -> String {
        let object = value.objectValue ?? [:]
        let operation = object["op"]?.stringValue ?? "?"
        func described(_ value: JSONValue?) -> String {
            let fields = value?.objectValue ?? [:]
            return "p\(fields["id"]?.intValue ?? 0) \(fields["name"]?.stringValue ?? "?")"
        }
        switch operation {
        case "setWindowRoot": return "setWindowRoot \(described(object["presentable"]))"
        case "push": return "push \(described(object["presentable"])) onto \(screen(object["container"]))"
        case "present": return "present \(described(object["presentable"])) over \(screen(object["container"]))"
        case "pop": return "pop \(screen(object["container"])) to \(screen(object["target"]))"
        case "dismiss": return "dismiss \(screen(object["target"]))"
        case "setTabs":
            let tabs = (object["tabs"]?.arrayValue ?? []).map(described).joined(separator: ", ")
            return "setTabs \(screen(object["container"])) [\(tabs)] selected \(object["selected"]?.intValue ?? 0)"
        case "selectTab": return "selectTab \(screen(object["container"])) \(object["index"]?.intValue ?? 0)"
        case "setMaster": return "setMaster \(screen(object["container"])) \(described(object["presentable"]))"
        case "setDetail": return "setDetail \(screen(object["container"])) \(described(object["presentable"]))"
        default: return operation
        }
    }

    // MARK: Layout

    private func time(_ milliseconds: Int64) -> String? {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        switch clock {
        case .none:
            return nil
        case .utc:
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.string(from: date)
        case .local:
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .current
            let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
            return String(
                format: "%02d:%02d:%02d.%03d",
                parts.hour ?? 0,
                parts.minute ?? 0,
                parts.second ?? 0,
                Int(milliseconds % 1000)
            )
        }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    func paint(_ text: String, _ color: Color) -> String {
        colored && color != .plain ? "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m" : text
    }
}
