import FlowCore
import FlowWire

/// What flowd remembers of each sender's numbered steps, kept session by session: a session's senders are
/// counted (``DaemonConfiguration/maxSteppersPerSession``), written and forgotten without looking at any other
/// session's.
struct StepperTable: Sendable {
    /// A sender within its session (its key without the session, which the outer table already hashed).
    private struct Sender: Hashable {
        let role: Role
        let name: String

        init(_ key: StepperKey) {
            role = key.role
            name = key.name
        }
    }

    private var bySession: [SessionID: [Sender: StepperRecord]] = [:]
    /// The sessions each inspector injected steps in: its records are numbered for its connection only.
    private var inspectorSessions: [String: Set<SessionID>] = [:]
    /// The last number each inspector gave a step, whichever session the step named: an inspector numbers what it
    /// injects on its connection, across sessions.
    private var injected: [String: UInt64] = [:]

    /// The last number an inspector gave a step (0: none yet, or none since flowd started).
    func lastInjected(by inspector: String) -> UInt64 {
        injected[inspector] ?? 0
    }

    /// An inspector's step took its number (in a session, or naming one flowd does not have).
    mutating func inject(_ sequence: UInt64, by inspector: String) {
        injected[inspector] = sequence
    }

    /// A sender's record, if it has one; setting `nil` forgets it.
    subscript(key: StepperKey) -> StepperRecord? {
        get { bySession[key.session]?[Sender(key)] }
        set {
            if let newValue {
                noteInspector(key)
                bySession[key.session, default: [:]][Sender(key)] = newValue
            } else if bySession[key.session]?.removeValue(forKey: Sender(key)) != nil {
                if bySession[key.session]?.isEmpty == true {
                    bySession[key.session] = nil
                }
                if key.role == .inspector {
                    inspectorSessions[key.name]?.remove(key.session)
                    if inspectorSessions[key.name]?.isEmpty == true {
                        inspectorSessions[key.name] = nil
                    }
                }
            }
        }
    }

    /// A sender's record, made when it has none; changed in place (a copy would copy its acknowledgements).
    subscript(key: StepperKey, default record: @autoclosure () -> StepperRecord) -> StepperRecord {
        get { bySession[key.session]?[Sender(key)] ?? record() }
        _modify {
            noteInspector(key)
            yield &bySession[key.session, default: [:]][Sender(key), default: record()]
        }
    }

    /// The records of one session's senders.
    func records(in session: SessionID) -> [StepperKey: StepperRecord] {
        let senders = bySession[session] ?? [:]
        return Dictionary(
            uniqueKeysWithValues: senders.map { sender, record in
                (StepperKey(session: session, role: sender.role, name: sender.name), record)
            }
        )
    }

    /// How many senders of the session have a record.
    func count(in session: SessionID) -> Int {
        bySession[session]?.count ?? 0
    }

    /// Forgets every sender of the session.
    mutating func removeSession(_ session: SessionID) {
        bySession[session] = nil
    }

    /// Forgets an inspector's records in every session; returns the sessions it had one in.
    mutating func removeInspector(named name: String) -> [SessionID] {
        injected[name] = nil
        let sessions = inspectorSessions.removeValue(forKey: name) ?? []
        for session in sessions {
            self[StepperKey(session: session, role: .inspector, name: name)] = nil
        }
        return sessions.sorted()
    }

    private mutating func noteInspector(_ key: StepperKey) {
        if key.role == .inspector {
            inspectorSessions[key.name, default: []].insert(key.session)
        }
    }
}
