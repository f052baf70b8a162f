import FlowCore
import FlowDaemonCore
import FlowInspector
import FlowSpec
import FlowWire

/// A recording replayed for the page, one frame per action: the action, the events it caused (as flowd publishes
/// them to inspectors: the engine's events, a presenter's visibility report, the command batches) and its
/// session's tree just after it. The engine is deterministic: the trees are those the recorded flowd had.
public struct RecordingFrames: Sendable {
    /// The frames as the feed's `recording` message carries them.
    public let frames: [JSONValue]
    /// How many events the frames hold.
    public let eventCount: Int
    /// How many of the recording's steps got another fate in the replay, and inputs the replay's engine refused:
    /// the recording starts after its session did, or was made with another flow file.
    public let differences: Int
    private let recording: Recording
    private let flows: FlowsReport

    /// The most actions a recording opened in the page may hold (each frame carries its session's whole tree).
    public static let maxActions = 20_000

    /// Replays `recording` against `specification`.
    /// - Throws: ``RecordingError`` when the recording holds more actions than ``maxActions``.
    public init(_ recording: Recording, specification: FlowSpecification) throws(RecordingError) {
        guard recording.actions.count <= Self.maxActions else {
            throw RecordingError(
                line: nil,
                "the recording holds \(recording.actions.count) actions; the page opens at most \(Self.maxActions): record a shorter stretch (flowctl record --session, --timeout)"
            )
        }
        var frames: [JSONValue] = []
        frames.reserveCapacity(recording.actions.count)
        var numbering = EventNumbering()
        let started = recording.header.startedAt
        let outcome = OfflineReplay(specification: specification).replay(recording) { replayed, engine in
            let action = replayed.action
            let at = started + action.at
            var events: [JSONValue] = []
            if action.kind == .visibility, !replayed.skipped {
                var fields: JSONObject = [
                    "presenter": .string(action.presenter ?? ""),
                    "visibility": .string((action.visibility ?? .unknown).rawValue),
                    "presentables": .array((action.presentables ?? []).map { .int(Int($0.rawValue)) }),
                ]
                if let refusal = replayed.refusal {
                    fields["refused"] = .string(refusal)
                }
                events.append(numbering.event("visibilityReported", session: action.session, at: at, fields))
            }
            if !replayed.skipped, let said = Self.inputEvent(action) {
                events.append(numbering.event(said.kind, session: action.session, at: at, said.fields))
            }
            for effects in replayed.effects {
                for event in effects.events {
                    events.append(
                        numbering.event(
                            event.inspectionKind.rawValue,
                            session: event.session.rawValue,
                            at: at,
                            event.inspectionFields
                        )
                    )
                }
                for batch in effects.batches {
                    events.append(numbering.commands(batch, at: at))
                }
            }
            let tree = engine.inspect(SessionID(action.session)).flatMap { try? FlowJSON.value(of: SessionTree($0)) }
            var frame: JSONObject = [
                "index": .int(replayed.index),
                "at": .int(Int(action.at)),
                "session": .string(action.session),
                "action": (try? FlowJSON.value(of: action)) ?? .null,
                "events": .array(events),
                "tree": tree ?? .null,
            ]
            if replayed.skipped {
                frame["skipped"] = .string(
                    "flowd refused it when it was recorded (\(action.reason ?? "no reason given"))"
                )
            }
            if let refusal = replayed.refusal {
                frame["refusal"] = .string(refusal)
            }
            frames.append(.object(frame))
        }
        self.frames = frames
        differences = outcome.divergences.count + outcome.refused.count
        eventCount = numbering.next - 1
        self.recording = recording
        flows = FlowsReport(specification)
    }

    /// The feed's `recording` message: the recording `name`, its sessions, the flow file it was replayed with, and
    /// the frames.
    public func message(name: String) -> JSONValue {
        [
            "type": "recording", "name": .string(name), "sessions": .array(recording.sessions.map(JSONValue.string)),
            "startedAt": .int(Int(recording.header.startedAt)),
            "flows": (try? FlowJSON.value(of: flows)) ?? .null, "frames": .array(frames),
            "differs": differences == 0
                ? .null
                : .string(
                    "the replay differs from the recording in \(differences) input\(differences == 1 ? "" : "s") (steps with another fate, or refused): the recording starts after its session did (flowctl record --wait, started before the session, records it from its start), or flowctl replays it with another flow file"
                ),
            "cut": recording.cutLine.map {
                .string("line \($0) was cut short (the recorder stopped while writing it): left out")
            } ?? .null,
        ]
    }
}

extension RecordingFrames {
    /// The event flowd publishes for an input that is not a step or a report (those have the engine's events):
    /// a value of the session's data set, a presenter gone.
    fileprivate static func inputEvent(_ action: RecordedAction) -> (kind: String, fields: JSONObject)? {
        switch action.kind {
        case .sessionData:
            return ("sessionData", ["key": .string(action.key ?? ""), "value": action.value ?? .null])
        case .presenterLost:
            let presenter = JSONValue.string(action.presenter ?? "")
            return (
                "unregistered",
                ["peer": presenter, "name": presenter, "role": "presenter", "reason": "its connection was lost"]
            )
        case .step, .deepLink, .visibility:
            return nil
        }
    }
}

/// Numbers a replay's events from 1, as the feed numbers live ones, and numbers each presenter's command batches.
private struct EventNumbering {
    var next = 1
    var commandSequences: [String: UInt64] = [:]

    mutating func event(_ kind: String, session: String, at: Int64, _ fields: JSONObject) -> JSONValue {
        defer { next += 1 }
        return [
            "seq": .int(next), "session": .string(session), "kind": .string(kind), "at": .int(Int(at)),
            "instance": .null, "fields": .object(fields),
        ]
    }

    /// A `commands` event: the COMMANDS body the presenter would have received.
    mutating func commands(_ batch: CommandBatch, at: Int64) -> JSONValue {
        let key = "\(batch.session.rawValue)\u{0}\(batch.presenter.rawValue)"
        let sequence = (commandSequences[key] ?? 0) + 1
        commandSequences[key] = sequence
        let message = CommandsMessage(
            presenter: batch.presenter.rawValue,
            sequence: sequence,
            epoch: "replay",
            commands: batch.commands,
            flow: batch.flow,
            step: batch.step
        )
        let fields = (try? JSONValue(parsing: WireCodec().body(of: message)))?.objectValue ?? [:]
        return event("commands", session: batch.session.rawValue, at: at, fields)
    }
}
