import FlowCore
import FlowWire

/// How a journal entry is written and read. A step — the entry written for almost every input under load — is
/// written compact, flat, member by member: with the STEP message's body as it came (`"v":3`, the body at most
/// ``maxEmbeddedBody`` bytes: nothing of it is written again; its first members, who sent it, are the same for all
/// of a sender's steps: ``JournalSenderText``), else with the step's members (`"v":2`). Members are read by name,
/// in any order. Every other
/// input, and a step that does not fit the compact form, goes through `Codable`. Every form is read back, so a
/// journal written by an earlier flowd still replays.
///
/// ```json
/// {"v":3,"session":"kiosk","role":"stepper","name":"app","peer":"kiosk/app","time":1200,"wall":1790000000000,
///  "message":{"step":{"name":"movieIsPicked","parameters":{"withId":3}},"sequence":7},"stepper":"app",
///  "correlation":12,"sentAt":1790000000000}
/// {"v":2,"session":"kiosk","role":"stepper","name":"app","peer":"kiosk/app","time":1200,"wall":1790000000000,
///  "sequence":7,"step":"movieIsPicked","parameters":{"withId":3},"stepper":"app","correlation":12,
///  "sentAt":1790000000000}
/// ```
/// (`"presentable":4` instead of `"stepper"` for a step a presenter emitted as its screen.)
extension JournalEntry {
    /// The compact form's version member, with the step's members.
    static let compactVersion = 2
    /// The compact form's version member, with the STEP message's body.
    static let compactWithMessageVersion = 3
    /// The largest STEP body written as it came (a larger one, with members a peer may add, is written as v2).
    static let maxEmbeddedBody = 512

    /// The entry as JSON text, on one line. `stepBody`: the body of the STEP message the entry's step came in
    /// (valid JSON, read by ``WireCodec``, whose step and sequence are the entry's), written as it is; `sender`: its
    /// sender's members, written when it registered (used when they are this entry's sender's).
    func encoded(stepBody: [UInt8]? = nil, sender senderText: JournalSenderText? = nil) throws -> [UInt8] {
        guard case .step(let stepper, let sequence, let step, let source, let sender) = input,
            stepper.session == session, let sequence = Int(exactly: sequence),
            let correlation = Int(exactly: sender.correlation)
        else {
            return try FlowJSON.encode(self)
        }
        let body = stepBody.flatMap { $0.count <= Self.maxEmbeddedBody ? $0 : nil }
        var entry: JSONObjectWriter
        if let body, let senderText, senderText.stepper == stepper, senderText.peer == sender.peer {
            entry = JSONObjectWriter(continuing: senderText.text, capacity: senderText.text.count + body.count + 160)
        } else {
            entry = JSONObjectWriter(capacity: 256)
            entry.member("v", body == nil ? Self.compactVersion : Self.compactWithMessageVersion)
            Self.writeSender(stepper, peer: sender.peer, to: &entry)
        }
        entry.member("time", Int(time))
        entry.member("wall", Int(wall))
        if let body {
            entry.member("message", jsonText: body)
        } else {
            entry.member("sequence", sequence)
            entry.member("step", step.name)
            entry.member("parameters", .object(step.parameters))
        }
        switch source {
        case .stepper(let name): entry.member("stepper", name)
        case .presentable(let id): entry.member("presentable", Int(id.rawValue))
        }
        entry.member("correlation", correlation)
        entry.member("sentAt", Int(sender.sentAt))
        return entry.finished()
    }

    /// The members that say who sent a step: its session, its sender's role and name, and the peer.
    fileprivate static func writeSender(_ stepper: StepperKey, peer: String, to entry: inout JSONObjectWriter) {
        entry.member("session", stepper.session.rawValue)
        entry.member("role", stepper.role.rawValue)
        entry.member("name", stepper.name)
        entry.member("peer", peer)
    }

    /// An entry read back from its text, in either form.
    static func decoded(from text: some Collection<UInt8>) throws -> JournalEntry {
        let value = try JSONValue(parsing: text)
        guard let members = value.objectValue,
            members["v"] == .int(compactVersion) || members["v"] == .int(compactWithMessageVersion)
        else {
            return try FlowJSON.decode(JournalEntry.self, from: value)
        }
        return try compactStep(members)
    }

    /// A step's entry from its compact form's members.
    private static func compactStep(_ members: JSONObject) throws -> JournalEntry {
        func string(_ key: String) throws -> String {
            guard case .string(let text)? = members[key] else { throw CompactEntryError(member: key) }
            return text
        }
        func integer(_ key: String) throws -> Int {
            guard case .int(let number)? = members[key] else { throw CompactEntryError(member: key) }
            return number
        }
        guard let role = Role(rawValue: try string("role")) else { throw CompactEntryError(member: "role") }
        // The step and its sequence: from the STEP body as it came (v3), or from the entry's own members (v2).
        let step: Step
        let sequence: UInt64
        if members["v"] == .int(compactWithMessageVersion) {
            guard let body = members["message"], let message = try? StepMessage(wire: body, at: "message") else {
                throw CompactEntryError(member: "message")
            }
            (step, sequence) = (message.step, message.sequence)
        } else {
            guard let number = UInt64(exactly: try integer("sequence")) else {
                throw CompactEntryError(member: "sequence")
            }
            guard case .object(let parameters)? = members["parameters"] else {
                throw CompactEntryError(member: "parameters")
            }
            (step, sequence) = (Step(try string("step"), parameters), number)
        }
        guard let correlation = UInt64(exactly: try integer("correlation")) else {
            throw CompactEntryError(member: "correlation")
        }
        let source: StepSource
        if members["stepper"] != nil {
            source = .stepper(try string("stepper"))
        } else if let raw = UInt32(exactly: try integer("presentable")) {
            source = .presentable(PresentableID(raw))
        } else {
            throw CompactEntryError(member: "presentable")
        }
        let session = SessionID(try string("session"))
        return JournalEntry(
            session: session,
            time: Int64(try integer("time")),
            wall: Int64(try integer("wall")),
            input: .step(
                stepper: StepperKey(session: session, role: role, name: try string("name")),
                sequence: sequence,
                step: step,
                source: source,
                sender: StepSender(
                    peer: try string("peer"),
                    correlation: correlation,
                    sentAt: Int64(try integer("sentAt"))
                )
            )
        )
    }
}

/// The first members of the journal entries (v3) of a sender's steps, the same for all of them — the version, the
/// session, the sender's role and name, the peer — written once, when it registers, and copied into each entry.
struct JournalSenderText: Sendable, Hashable {
    let stepper: StepperKey
    let peer: String
    /// The members' text: an object's, open (`{"v":3,"session":...,"peer":"..."`).
    let text: [UInt8]

    init(stepper: StepperKey, peer: String) {
        self.stepper = stepper
        self.peer = peer
        var members = JSONObjectWriter(capacity: 128)
        members.member("v", JournalEntry.compactWithMessageVersion)
        JournalEntry.writeSender(stepper, peer: peer, to: &members)
        text = Array(members.finished().dropLast())
    }
}

/// A compact journal entry with a member missing or of the wrong type.
struct CompactEntryError: Error, CustomStringConvertible {
    let member: String

    var description: String { "the compact step entry's \"\(member)\" is missing or not what it must be" }
}
