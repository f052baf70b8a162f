import FlowCore
import FlowWire

/// The long arrays of a session's record, written member by member in exactly the form `Codable` gives them (and
/// reads back): a record is written whole every thousand steps or so, and through `Codable`'s containers its
/// remembered outcomes and waiting steps were most of what a step cost flowd.
extension StoredOutcome {
    /// `[{"sequence":4,"outcome":{"fate":{"_0":{"accepted":true,"flows":[1]}}}}, ...]`; `nil` when a sequence is
    /// beyond `Int` (then `Codable` writes them).
    static func fragment(_ outcomes: [StoredOutcome]) -> JSONFragment? {
        writeArray(outcomes) { stored, list in
            guard let sequence = Int(exactly: stored.sequence) else { return false }
            list.object { object in
                object.member("sequence", sequence)
                object.member("outcome") { outcome in
                    switch stored.outcome {
                    case .fate(let fate):
                        outcome.member("fate") { $0.member("_0", object: fate.writeMembers) }
                    case .refused(let refusal):
                        outcome.member("refused") { refused in
                            refused.member("_0") { fields in
                                fields.member("code", refusal.code.rawValue)
                                fields.member("message", refusal.message)
                            }
                        }
                    }
                }
            }
            return true
        }
    }
}

extension StoredWaitingStep {
    /// `[{"token":7,"acknowledgement":{"peer":...,"stepper":{...},"sequence":4,"correlation":9,"sentAt":...}}, ...]`;
    /// `nil` when a number is beyond `Int` (then `Codable` writes them).
    static func fragment(_ steps: [StoredWaitingStep]) -> JSONFragment? {
        writeArray(steps) { step, list in
            let waiting = step.acknowledgement
            guard let token = Int(exactly: step.token.rawValue), let sequence = Int(exactly: waiting.sequence),
                let correlation = Int(exactly: waiting.correlation)
            else { return false }
            list.object { object in
                object.member("token", token)
                object.member("acknowledgement") { acknowledgement in
                    acknowledgement.member("peer", waiting.peer)
                    acknowledgement.member("stepper") { stepper in
                        stepper.member("session", waiting.stepper.session.rawValue)
                        stepper.member("role", waiting.stepper.role.rawValue)
                        stepper.member("name", waiting.stepper.name)
                    }
                    acknowledgement.member("sequence", sequence)
                    acknowledgement.member("correlation", correlation)
                    acknowledgement.member("sentAt", Int(waiting.sentAt))
                }
            }
            return true
        }
    }
}

/// A JSON array, each element written by `write` as an object of the list (which returns `false` when it cannot
/// write it: then `nil`).
private func writeArray<Element>(
    _ elements: [Element],
    _ write: (Element, inout JSONArrayWriter) -> Bool
) -> JSONFragment? {
    var list = JSONArrayWriter(capacity: 2 + 96 * elements.count)
    for element in elements {
        guard write(element, &list) else { return nil }
    }
    return JSONFragment(text: list.finished())
}
