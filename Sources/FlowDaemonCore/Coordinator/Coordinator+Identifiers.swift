import FlowCore
import FlowWire

extension Coordinator {
    /// The first identifier of a message that flowd refuses, and why: over 128 bytes (`tooLong`), or holding a
    /// control character (`malformedBody`: a session id with an escape sequence would reach operators' terminals
    /// through flowctl). Identifiers are HELLO's id, name and session, step names (a deep link's too), session-data
    /// keys, QUERY's `what` and session, and the header's session and sender. On every message: it allocates
    /// nothing unless it finds a problem.
    static func identifierProblem(in envelope: Envelope) -> (code: ErrorCode, message: String)? {
        func problem(_ field: String, _ value: String?) -> (code: ErrorCode, message: String)? {
            guard let value else { return nil }
            let count = value.utf8.count
            if count > WireLimits.maxIdentifierLength {
                return (
                    .tooLong,
                    "\(field) is \(count) bytes long; ids, names, sessions and step names are at most \(WireLimits.maxIdentifierLength)"
                )
            }
            if let control = ControlCharacters.first(in: value) {
                let code = String(control.value, radix: 16, uppercase: true)
                return (
                    .malformedBody,
                    "\(field) holds a control character (U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code)); ids, names, sessions and step names are printable text"
                )
            }
            return nil
        }
        switch envelope.message {
        case .hello(let hello):
            if let found = problem("id", hello.id) ?? problem("name", hello.name) ?? problem("session", hello.session) {
                return found
            }
        case .step(let step):
            if let found = problem("step.name", step.step.name) { return found }
        case .deepLink(let link):
            for step in link.path {
                if let found = problem("path[].name", step.name) { return found }
            }
        case .sessionData(let data):
            if let found = problem("key", data.key) { return found }
        case .query(let query):
            if let found = problem("what", query.what)
                ?? problem("arguments.session", query.arguments["session"]?.stringValue)
            {
                return found
            }
        case .bye, .heartbeat, .visibility, .snapshotRequest, .guardAnswer:
            break
        case .welcome, .redirect, .error, .stepAck, .commands, .snapshot, .reply, .guardQuestion, .event, .events:
            // Not for flowd: the dispatcher answers `unexpectedMessage`.
            break
        }
        return problem("header.session", envelope.header.session) ?? problem("header.sender", envelope.header.sender)
    }
}
