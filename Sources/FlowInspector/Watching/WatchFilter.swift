import FlowCore
import FlowWire

/// Which items `flowctl watch` shows. Every criterion given must match; a list matches when any of it does.
public struct WatchFilter: Sendable {
    /// The kinds shown when none are asked for: what happened, without the inputs and intermediate steps that
    /// repeat it (`stepReceived` before its `stepFate`, `willNavigate` before `didNavigate`...). Inspectors'
    /// registrations are left out too.
    public static let defaultKinds: Set<String> = Set(
        [
            InspectionKind.sessionStarted, .sessionEnded, .stepFate, .deepLinkReceived, .deepLinkWaiting, .didNavigate,
            .commands, .adapted, .commandRejected, .flowStarted, .flowEnded, .forwardDroppedAtRoot, .visibilityChanged,
            .guardAsked, .guardAnswered, .guardMissing, .sessionData, .registered, .unregistered, .error,
        ].map(\.rawValue)
    )

    /// Every kind flowd publishes (and `commands`): the default kinds and the inputs they leave out.
    public static let allKinds = defaultKinds.union(
        [InspectionKind.stepReceived, .willNavigate, .flowReady, .visibilityReported].map(\.rawValue)
    )

    /// Kinds to show; empty means ``defaultKinds`` (or everything, with `all`).
    public var kinds: Set<String> = []
    /// Show every kind.
    public var all = false
    /// Flows, by name or id.
    public var flows: [String] = []
    /// Steppers, by name.
    public var steppers: [String] = []
    /// Presenters, by name.
    public var presenters: [String] = []
    /// Steps, by name.
    public var steps: [String] = []

    public init() {}

    /// Whether the filter shows `item`; `names` knows the flows' names and the screens' presenters.
    public func shows(_ item: WatchedItem, names: WatchNames) -> Bool {
        if !kinds.isEmpty {
            guard kinds.contains(item.kind) else { return false }
        } else if !all {
            // Inspectors (flowctl itself, mostly) come and go for every query: shown with --all only.
            guard Self.defaultKinds.contains(item.kind), item.fields["role"]?.stringValue != "inspector" else {
                return false
            }
        }
        if !flows.isEmpty {
            let concerned = item.flows.flatMap { id in
                ["\(id)", names.flowName(id, session: item.session)].compactMap { $0 }
            }
            guard concerned.contains(where: flows.contains) else { return false }
        }
        if !steppers.isEmpty {
            let stepper = item.stepper ?? peer(of: item, role: "stepper")
            guard let stepper, steppers.contains(stepper) else { return false }
        }
        if !presenters.isEmpty {
            guard let presenter = presenter(of: item, names: names), presenters.contains(presenter) else {
                return false
            }
        }
        if !steps.isEmpty {
            guard item.stepNames.contains(where: steps.contains) else { return false }
        }
        return true
    }

    private func peer(of item: WatchedItem, role: String) -> String? {
        guard [InspectionKind.registered, .unregistered].contains(InspectionKind(item.kind)),
            item.fields["role"]?.stringValue == role
        else {
            return nil
        }
        return item.fields["name"]?.stringValue
    }

    private func presenter(of item: WatchedItem, names: WatchNames) -> String? {
        if [InspectionKind.commands, .visibilityReported].contains(InspectionKind(item.kind)) {
            return item.fields["presenter"]?.stringValue
        }
        if let id = item.fields["source"]?.objectValue?["presentable"]?.intValue ?? item.fields["presentable"]?.intValue
        {
            return names.presenter(of: id, session: item.session)
        }
        return peer(of: item, role: "presenter")
    }
}

/// What a watcher learned along the way: flows' names, and which presenter shows which screen.
public struct WatchNames: Sendable {
    private var flows: [String: [Int: String]] = [:]
    private var screens: [String: [Int: (name: String, presenter: String)]] = [:]

    public init() {}

    /// Learns from a tree (flowctl reads one when it starts watching a session).
    public mutating func learn(from tree: SessionTree) {
        let session = tree.session.rawValue
        for flow in tree.flows {
            flows[session, default: [:]][Int(flow.id.rawValue)] = flow.name
        }
        for screen in tree.screens {
            screens[session, default: [:]][Int(screen.id.rawValue)] = (screen.name, screen.presenter.rawValue)
        }
    }

    /// Learns from an item: flows started, screens placed.
    public mutating func learn(from item: WatchedItem) {
        let session = item.session ?? "-"
        switch InspectionKind(item.kind) {
        case .flowStarted, .willNavigate, .didNavigate:
            if let id = item.fields["flow"]?.intValue, let name = item.fields["name"]?.stringValue {
                flows[session, default: [:]][id] = name
            }
        case .commands:
            let presenter = item.fields["presenter"]?.stringValue ?? "?"
            for command in item.fields["commands"]?.arrayValue ?? [] {
                let object = command.objectValue ?? [:]
                let placed = [object["presentable"]].compactMap { $0 } + (object["tabs"]?.arrayValue ?? [])
                for description in placed {
                    guard let fields = description.objectValue, let id = fields["id"]?.intValue else { continue }
                    screens[session, default: [:]][id] = (fields["name"]?.stringValue ?? "?", presenter)
                }
            }
        case .sessionEnded:
            flows[session] = nil
            screens[session] = nil
        default:
            break
        }
    }

    /// A flow's name, when known.
    public func flowName(_ id: Int, session: String?) -> String? {
        flows[session ?? "-"]?[id]
    }

    /// A screen's name, when known.
    public func screenName(_ id: Int, session: String?) -> String? {
        screens[session ?? "-"]?[id]?.name
    }

    /// The presenter that shows a screen, when known.
    public func presenter(of id: Int, session: String?) -> String? {
        screens[session ?? "-"]?[id]?.presenter
    }
}
