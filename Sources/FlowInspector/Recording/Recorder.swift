import FlowCore
import FlowWire

/// Turns what flowd publishes into a recording's actions: the inputs of a session (steps, deep links, visibility
/// reports, session data, presenters lost), with their time. It learns which presenter shows which screen from
/// the command batches, to say which presenter a screen's own step came from.
public struct Recorder: Sendable {
    /// When recording started (ms since 1970); actions are timed from it.
    public let startedAt: Int64
    private var presenters: [String: [PresentableID: String]] = [:]
    /// Actions not written yet, in order: a step waits for its fate (its `stepFate`, by session and token), and
    /// whatever follows it waits with it, so the file keeps flowd's order.
    private var waiting: [(action: RecordedAction, token: Int?)] = []

    public init(startedAt: Int64) {
        self.startedAt = startedAt
    }

    /// Learns which presenter shows the screens a batch places, from an event of kind `commands` (its fields are
    /// the COMMANDS body); other events teach nothing.
    public mutating func learn(from event: InspectionEvent, session: String) {
        guard event.inspectionKind == .commands, let batch = try? CommandsMessage(wire: .object(event.fields), at: "")
        else {
            return
        }
        learn(from: batch, session: session)
    }

    /// Learns which presenter shows each screen already on screen (a session's tree when recording starts): the
    /// batches that placed them went out before.
    public mutating func learn(from tree: SessionTree) {
        for screen in tree.screens {
            presenters[tree.session.rawValue, default: [:]][screen.id] = screen.presenter.rawValue
        }
    }

    /// Steps from screens whose presenter is not known (placed before recording, in a session whose tree could
    /// not be read): left out, since a replay could not send them as that presenter.
    public private(set) var leftOut = 0

    /// Learns which presenter shows the screens a batch places.
    public mutating func learn(from batch: CommandsMessage, session: String) {
        for command in batch.commands {
            for placed in command.placed {
                presenters[session, default: [:]][placed.id] = batch.presenter
            }
        }
    }

    /// Takes an event; returns the actions now complete, in order, to be written: an input whose outcome is known,
    /// and those after it. A step is complete once its fate is published (at once, or after a guard answers).
    public mutating func take(_ event: InspectionEvent, sentAt: Int64) -> [RecordedAction] {
        if InspectionKind(event.kind) == .stepFate, let session = event.session,
            let token = event.fields["token"]?.intValue,
            let index = waiting.firstIndex(where: { $0.token == token && $0.action.session == session })
        {
            let accepted = event.fields["accepted"]?.boolValue ?? false
            waiting[index].action.fate = accepted ? .accepted : .dropped
            waiting[index].action.reason = accepted ? nil : event.fields["reason"]?.stringValue
            waiting[index].token = nil
        } else if let action = action(for: event, sentAt: sentAt) {
            let token = action.kind == .step ? event.fields["token"]?.intValue : nil
            waiting.append((action, token))
        }
        let ready = waiting.prefix { $0.token == nil }.map(\.action)
        waiting.removeFirst(ready.count)
        return ready
    }

    /// The actions still waiting for their fate (recording stops): written as they are, their fate unknown.
    public mutating func flush() -> [RecordedAction] {
        defer { waiting = [] }
        return waiting.map(\.action)
    }

    /// The action an event stands for, or `nil` when it is a consequence rather than an input.
    public mutating func action(for event: InspectionEvent, sentAt: Int64) -> RecordedAction? {
        guard let session = event.session else { return nil }
        let fields = event.fields
        var action = RecordedAction(at: max(0, sentAt - startedAt), session: session, kind: .step)
        switch InspectionKind(event.kind) {
        case .stepReceived:
            guard let step = fields["step"].flatMap(Self.step) else { return nil }
            action.step = step
            let source = fields["source"]?.objectValue ?? [:]
            if let stepper = source["stepper"]?.stringValue {
                action.stepper = stepper
            } else if let id = source["presentable"]?.intValue {
                let presentable = PresentableID(UInt32(clamping: id))
                action.presentable = presentable
                action.presenter = presenters[session]?[presentable]
            } else {
                return nil  // The coordinator's own step (a OneStepper's): the replay makes it again.
            }
        case .deepLinkReceived:
            action.kind = .deepLink
            action.path = (fields["path"]?.arrayValue ?? []).compactMap(Self.step)
        case .visibilityReported:
            action.kind = .visibility
            action.presenter = fields["presenter"]?.stringValue
            action.visibility = fields["visibility"]?.stringValue.flatMap(Visibility.init(rawValue:))
            action.presentables = (fields["presentables"]?.arrayValue ?? []).compactMap {
                $0.intValue.map { PresentableID(UInt32(clamping: $0)) }
            }
            if let refusal = fields["refused"]?.stringValue {
                action.fate = .refused
                action.reason = refusal
            }
        case .sessionData:
            action.kind = .sessionData
            action.key = fields["key"]?.stringValue
            action.value = fields["value"] ?? .null
        case .unregistered where fields["role"]?.stringValue == "presenter":
            action.kind = .presenterLost
            action.presenter = fields["name"]?.stringValue
        case .sessionEnded:
            presenters[session] = nil
            return nil
        default:
            return nil
        }
        guard action.problem == nil else {
            if action.kind == .step {
                leftOut += 1
            }
            return nil
        }
        return action
    }

    private static func step(_ value: JSONValue) -> Step? {
        guard let object = value.objectValue, let name = object["name"]?.stringValue else { return nil }
        return Step(name, object["parameters"]?.objectValue ?? [:])
    }
}
