import FlowCore
import FlowWire
import Foundation

/// One thing `flowctl watch` shows: an inspection event, or a batch of commands, in one shape.
public struct WatchedItem: Sendable, Hashable {
    /// The event's kind (`stepFate`, `didNavigate`...), or `commands` for a batch.
    public var kind: String
    /// The session, when there is one.
    public var session: String?
    /// When flowd published it (ms since 1970).
    public var sentAt: Int64
    /// The details, shaped by the kind (for `commands`: the COMMANDS body).
    public var fields: JSONObject

    public init(kind: String, session: String?, sentAt: Int64, fields: JSONObject) {
        self.kind = kind
        self.session = session
        self.sentAt = sentAt
        self.fields = fields
    }

    /// The item as `flowctl watch --json` prints it: `{"fields", "kind", "sentAt", "session"}`, every object's
    /// members in key order (so that the same item always reads the same), compact.
    public var jsonText: [UInt8] {
        var object = JSONObjectWriter(capacity: 256)
        object.member("fields", .object(fields), sortedKeys: true)
        object.member("kind", kind)
        object.member("sentAt", Int(sentAt))
        if let session {
            object.member("session", session)
        }
        return object.finished()
    }

    /// An inspection event as flowd published it (a command batch is one, of kind `commands`).
    public init(_ event: InspectionEvent, header: Header) {
        self.init(
            kind: event.kind,
            session: event.session ?? header.session,
            sentAt: header.sentAt,
            fields: event.fields
        )
    }

    /// The step it is about, when it is about one (or the steps of a deep link).
    var stepNames: [String] {
        if let name = fields["step"]?.objectValue?["name"]?.stringValue {
            return [name]
        }
        return (fields["path"]?.arrayValue ?? []).compactMap { $0.objectValue?["name"]?.stringValue }
    }

    /// The stepper that emitted the step it is about.
    var stepper: String? {
        fields["source"]?.objectValue?["stepper"]?.stringValue
    }

    /// The flows it concerns, by id.
    var flows: [Int] {
        var flows = (fields["flows"]?.arrayValue ?? []).compactMap(\.intValue)
        if let flow = fields["flow"]?.intValue {
            flows.append(flow)
        }
        if InspectionKind(kind) == .sessionStarted, let root = fields["rootFlow"]?.intValue {
            flows.append(root)
        }
        return flows
    }
}
