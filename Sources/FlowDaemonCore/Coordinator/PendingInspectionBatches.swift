import FlowCore
import FlowWire

/// Batched inspection events (EVENTS) waiting to be published at the end of the loop's turn: per session, in the
/// order the sessions first had one, each body written as its events come, from their fields' text (a command
/// batch's entry takes the COMMANDS body as it was published).
struct PendingInspectionBatches: Sendable {
    /// The most events in one EVENTS message: a session with more waiting publishes more than one.
    static let limit = 512

    /// An EVENTS body being written: its events, until it is finished.
    struct Body: Sendable {
        let session: SessionID?
        var events = JSONArrayWriter(capacity: 1024)
        var count: Int { events.count }
        /// When its first event was added (ms since 1970).
        var firstAt: Int64?

        init(session: SessionID?) {
            self.session = session
        }

        /// Adds an entry, `{"kind":...,"at":...,"fields":...}`, its `fields` member written by `writeFields`.
        mutating func add(kind: String, at: Int64, fields writeFields: (inout JSONObjectWriter) -> Void) {
            firstAt = firstAt ?? at
            events.object { entry in
                entry.member("kind", kind)
                entry.member("at", Int(at))
                writeFields(&entry)
            }
        }

        /// The finished body, `{"events":[...],"session":...}` (the session when there is one). The body is empty
        /// afterwards.
        mutating func finish() -> [UInt8] {
            var finished = JSONArrayWriter(capacity: 0)
            swap(&finished, &events)
            var body = JSONObjectWriter()
            body.member("events", jsonText: finished.finished())
            if let session {
                body.member("session", session.rawValue)
            }
            return body.finished()
        }
    }

    private var bodies: [Body] = []
    private var indices: [String: Int] = [:]

    /// How many events wait, over every batch.
    var count: Int {
        bodies.reduce(0) { $0 + $1.count }
    }

    /// When the oldest event waiting was added (ms since 1970), if one is waiting.
    var oldest: Int64? {
        bodies.compactMap(\.firstAt).min()
    }

    /// Adds an event to its session's batch, its fields written by `fields`; returns the batch when that filled
    /// it, to publish now.
    mutating func add(
        kind: String,
        at: Int64,
        session: SessionID?,
        fields: (inout JSONObjectWriter) -> Void
    ) -> Body? {
        entry(kind: kind, at: at, session: session) { $0.member("fields", object: fields) }
    }

    /// Adds an event whose fields are already JSON text (a COMMANDS body, as it was published).
    mutating func add(kind: String, at: Int64, session: SessionID, fieldsText: [UInt8]) -> Body? {
        entry(kind: kind, at: at, session: session) { $0.member("fields", jsonText: fieldsText) }
    }

    /// Adds an entry whose `fields` member `writeFields` writes.
    private mutating func entry(
        kind: String,
        at: Int64,
        session: SessionID?,
        writeFields: (inout JSONObjectWriter) -> Void
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
        bodies[index].add(kind: kind, at: at, fields: writeFields)
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
