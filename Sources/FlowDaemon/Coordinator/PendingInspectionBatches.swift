import FlowCore
import FlowWire

/// Batched inspection events (EVENTS) waiting to be published at the end of the loop's turn: per session, in the
/// order the sessions first had one, each body written as its events come, from their fields' text (a command
/// batch's entry takes the COMMANDS body as it was published).
struct PendingInspectionBatches: Sendable {
    /// The most events in one EVENTS message: a longer turn publishes more than one.
    static let limit = 256

    /// An EVENTS body being written: `{"events":[...` until it is finished.
    struct Body: Sendable {
        let session: SessionID?
        var text: [UInt8] = Body.opening
        var count = 0

        init(session: SessionID?) {
            self.session = session
        }

        private static let opening = Array(#"{"events":["#.utf8)
        private static let kindMember = Array(#"{"kind":"#.utf8)
        private static let atMember = Array(#","at":"#.utf8)
        private static let fieldsMember = Array(#","fields":"#.utf8)
        private static let sessionMember = Array(#","session":"#.utf8)

        /// Adds an entry: `{"kind":...,"at":...,"fields":...}` with the fields' text as given.
        mutating func add(kind: String, at: Int64, fieldsText: [UInt8]) {
            if count > 0 {
                text.append(UInt8(ascii: ","))
            }
            text += Body.kindMember
            JSONValue.string(kind).appendJSONText(to: &text)
            text += Body.atMember
            JSONValue.int(Int(at)).appendJSONText(to: &text)
            text += Body.fieldsMember
            text += fieldsText
            text.append(UInt8(ascii: "}"))
            count += 1
        }

        /// The finished body: the events, then the session when there is one.
        func finished() -> [UInt8] {
            var body = text
            body.append(UInt8(ascii: "]"))
            if let session {
                body += Body.sessionMember
                JSONValue.string(session.rawValue).appendJSONText(to: &body)
            }
            body.append(UInt8(ascii: "}"))
            return body
        }
    }

    private var bodies: [Body] = []
    private var indices: [String: Int] = [:]

    /// Adds an event, its fields already JSON text, to its session's batch; returns the batch when that filled it,
    /// to publish now.
    mutating func add(kind: String, at: Int64, session: SessionID?, fieldsText: [UInt8]) -> Body? {
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
