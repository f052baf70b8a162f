import FlowCore

extension JournalEntry {
    /// The entry as JSON, in the form its `Codable` conformance reads back. A step — the entry written for almost
    /// every input under load — is written member by member, straight as text; the others go through `Codable`.
    func encoded() throws -> [UInt8] {
        guard case .step(let stepper, let sequence, let step, let source, let sender) = input,
            let sequence = Int(exactly: sequence), let correlation = Int(exactly: sender.correlation)
        else {
            return try FlowJSON.encode(self)
        }
        var entry = JSONObjectWriter(capacity: 256)
        entry.member("session", session.rawValue)
        entry.member("time", Int(time))
        entry.member("wall", Int(wall))
        entry.member("input") { input in
            input.member("step") { fields in
                fields.member("stepper") { key in
                    key.member("session", stepper.session.rawValue)
                    key.member("role", stepper.role.rawValue)
                    key.member("name", stepper.name)
                }
                fields.member("sequence", sequence)
                fields.member("step") { written in
                    written.member("name", step.name)
                    written.member("parameters", .object(step.parameters))
                }
                fields.member("source") { written in
                    switch source {
                    case .stepper(let name): written.member("stepper") { $0.member("_0", name) }
                    case .presentable(let id): written.member("presentable") { $0.member("_0", Int(id.rawValue)) }
                    }
                }
                fields.member("sender") { written in
                    written.member("peer", sender.peer)
                    written.member("correlation", correlation)
                    written.member("sentAt", Int(sender.sentAt))
                }
            }
        }
        return entry.finished()
    }
}
