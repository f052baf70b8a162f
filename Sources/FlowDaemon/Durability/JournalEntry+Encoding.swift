import FlowCore
import FlowWire

/// How a journal entry is written and read. A step — the entry written for almost every input under load — is
/// written compact, flat, member by member (`"v":2` first); every other input, and a step that does not fit the
/// compact form, goes through `Codable`. Both forms are read back, so a journal written before the compact form
/// still replays.
///
/// ```json
/// {"v":2,"session":"kiosk","time":1200,"wall":1790000000000,"role":"stepper","name":"app","sequence":7,
///  "step":"movieIsPicked","parameters":{"withId":3},"stepper":"app","peer":"kiosk/app","correlation":12,
///  "sentAt":1790000000000}
/// ```
/// (`"presentable":4` instead of `"stepper"` for a step a presenter emitted as its screen.)
extension JournalEntry {
    /// The compact form's version member.
    static let compactVersion = 2

    /// The entry as JSON text, on one line.
    func encoded() throws -> [UInt8] {
        guard case .step(let stepper, let sequence, let step, let source, let sender) = input,
            stepper.session == session, let sequence = Int(exactly: sequence),
            let correlation = Int(exactly: sender.correlation)
        else {
            return try FlowJSON.encode(self)
        }
        var entry = JSONObjectWriter(capacity: 192)
        entry.member("v", Self.compactVersion)
        entry.member("session", session.rawValue)
        entry.member("time", Int(time))
        entry.member("wall", Int(wall))
        entry.member("role", stepper.role.rawValue)
        entry.member("name", stepper.name)
        entry.member("sequence", sequence)
        entry.member("step", step.name)
        entry.member("parameters", .object(step.parameters))
        switch source {
        case .stepper(let name): entry.member("stepper", name)
        case .presentable(let id): entry.member("presentable", Int(id.rawValue))
        }
        entry.member("peer", sender.peer)
        entry.member("correlation", correlation)
        entry.member("sentAt", Int(sender.sentAt))
        return entry.finished()
    }

    /// An entry read back from its text, in either form.
    static func decoded(from text: some Collection<UInt8>) throws -> JournalEntry {
        let value = try JSONValue(parsing: text)
        guard let members = value.objectValue, members["v"] == .int(compactVersion) else {
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
        guard let sequence = UInt64(exactly: try integer("sequence")),
            let correlation = UInt64(exactly: try integer("correlation"))
        else { throw CompactEntryError(member: "sequence") }
        guard case .object(let parameters)? = members["parameters"] else {
            throw CompactEntryError(member: "parameters")
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
                step: Step(try string("step"), parameters),
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

/// A compact journal entry with a member missing or of the wrong type.
struct CompactEntryError: Error, CustomStringConvertible {
    let member: String

    var description: String { "the compact step entry's \"\(member)\" is missing or not what it must be" }
}
