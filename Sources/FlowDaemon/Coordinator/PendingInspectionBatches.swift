import FlowCore
import FlowWire

/// Batched inspection events (EVENTS) waiting to be published at the end of the loop's turn: per session, in the
/// order the sessions first had one, each body written as its events come (no intermediate values: a command
/// batch's entry takes the COMMANDS body as it was published).
struct PendingInspectionBatches: Sendable {
    /// The most events in one EVENTS message: a longer turn publishes more than one.
    static let limit = 256

    /// An EVENTS body being written: `{"events":[...` until it is finished.
    struct Body: Sendable {
        let session: SessionID?
        var text: [UInt8] = Array(#"{"events":["#.utf8)
        var count = 0

        init(session: SessionID?) {
            self.session = session
        }

        /// Adds an entry: `{"kind":...,"at":...,"fields":...}` with the fields' text as given.
        mutating func add(kind: String, at: Int64, fieldsText: (inout [UInt8]) -> Void) {
            text += count == 0 ? Array(#"{"kind":"#.utf8) : Array(#",{"kind":"#.utf8)
            JSONValue.string(kind).appendJSONText(to: &text)
            text += Array(#","at":"#.utf8)
            JSONValue.int(Int(at)).appendJSONText(to: &text)
            text += Array(#","fields":"#.utf8)
            fieldsText(&text)
            text.append(UInt8(ascii: "}"))
            count += 1
        }

        /// The finished body: the events, then the session when there is one.
        func finished() -> [UInt8] {
            var body = text
            body.append(UInt8(ascii: "]"))
            if let session {
                body += Array(#","session":"#.utf8)
                JSONValue.string(session.rawValue).appendJSONText(to: &body)
            }
            body.append(UInt8(ascii: "}"))
            return body
        }
    }

    private var bodies: [Body] = []
    private var indices: [String: Int] = [:]

    /// Adds an event to its session's batch; returns the batch when that filled it, to publish now.
    mutating func add(kind: String, at: Int64, session: SessionID?, fields: JSONObject) -> Body? {
        add(kind: kind, at: at, session: session) { JSONValue.object(fields).appendJSONText(to: &$0) }
    }

    /// Adds an event whose fields are already JSON text (a COMMANDS body).
    mutating func add(kind: String, at: Int64, session: SessionID?, fieldsText: [UInt8]) -> Body? {
        add(kind: kind, at: at, session: session) { $0 += fieldsText }
    }

    private mutating func add(
        kind: String,
        at: Int64,
        session: SessionID?,
        fieldsText: (inout [UInt8]) -> Void
    ) -> Body? {
        let key = session?.rawValue ?? ""
        let index: Int
        if let known = indices[key] {
            index = known
        } else {
            index = bodies.count
            indices[key] = index
            bodies.append(Body(session: session))
        }
        bodies[index].add(kind: kind, at: at, fieldsText: fieldsText)
        guard bodies[index].count >= Self.limit else { return nil }
        defer { bodies[index] = Body(session: session) }
        return bodies[index]
    }

    /// Every batch waiting, in order; nothing waits afterwards.
    mutating func take() -> [Body] {
        defer {
            bodies.removeAll()
            indices.removeAll()
        }
        return bodies.filter { $0.count > 0 }
    }
}
