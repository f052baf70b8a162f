import FlowCore
import FlowStore
import FlowWire

/// A HELLO waiting for the fleet's store to say where its session is served.
struct ParkedHello: Sendable {
    let hello: Hello
    let peer: String
    let userID: String?
    let correlation: UInt64

    /// Whether it creates its session when the session is new (a stepper's or a presenter's).
    var creates: Bool { Self.creates(hello) }

    /// Whether a HELLO creates its session when it is new (a stepper's or a presenter's).
    static func creates(_ hello: Hello) -> Bool {
        hello.role == .stepper || hello.role == .presenter
    }
}

/// What an instance of a fleet knows of the fleet, and its rules: which sessions it owns, the HELLOs that wait for
/// the store to say where their session is served, and what to do with them when it answers. It is told what
/// happened and answers with what to do; the coordinator does it (restores, sends, refuses).
struct FleetMembership: Sendable {
    /// What to do with the HELLOs that waited for a session, once the store said where it is served.
    enum Placement: Sendable {
        /// Take them here, after restoring what the store holds of the session (`restore`: nil when it holds
        /// nothing, a new session).
        case here([ParkedHello], restore: StoredState?)
        /// Send them to the instance that serves the session.
        case elsewhere([ParkedHello], owner: FleetMember)
        /// Answer them `storeUnavailable`, with the reason.
        case refused([ParkedHello], reason: String)
    }

    /// This instance.
    let instance: FleetInstance
    /// The sessions this instance owns in the store (restored, claimed, taken over), created yet or not.
    private(set) var owned: Set<SessionID>
    /// HELLOs waiting for the store, by session.
    private var parked: [SessionID: [ParkedHello]] = [:]
    /// Sessions to ask the store about once the turn's writes are handed over.
    private var toLocate: [SessionID] = []
    /// The fleet's instances, as last read from the store.
    var members: [FleetMember] = []

    /// An instance that owns `owned` (the sessions it restored).
    init(instance: FleetInstance, owned: Set<SessionID>) {
        self.instance = instance
        self.owned = owned
    }

    /// Whether HELLOs wait for the store.
    var hasParkedHellos: Bool { !parked.isEmpty }

    /// Parks a HELLO whose session this instance does not own (`exists`: whether the session runs here): the
    /// store is asked where it is served after the turn. A HELLO said again while the first waits replaces it: one
    /// answer per peer.
    /// - Returns: whether it was parked (false: the session is this instance's, take the HELLO now).
    mutating func park(_ hello: ParkedHello, session: SessionID, exists: Bool) -> Bool {
        guard !owned.contains(session), !exists else { return false }
        if parked[session] == nil {
            toLocate.append(session)
        }
        parked[session, default: []].removeAll { $0.peer == hello.peer }
        parked[session, default: []].append(hello)
        return true
    }

    /// The sessions to ask the store about, taken (each once), with whether a HELLO waiting for it would create it
    /// (then it is claimed when nobody owns it).
    mutating func takeSessionsToLocate() -> [TurnEffects.SessionToLocate] {
        defer { toLocate = [] }
        return toLocate.map { session in (session, parked[session, default: []].contains { $0.creates }) }
    }

    /// The store said where a session is served: what to do with the HELLOs that waited for it. A session the store
    /// gives this instance is owned from now on; when nobody owns it, an inspector's or a guard's HELLO goes on here
    /// (it waits for the session, as on a flowd of its own) while a stepper's or a presenter's asks again, claiming.
    mutating func located(_ session: SessionID, _ result: Result<SessionPlacement, StoreError>) -> Placement {
        let waiting = parked.removeValue(forKey: session) ?? []
        switch result {
        case .success(.here(let stored)):
            owned.insert(session)
            let holdsSomething = !stored.snapshots.isEmpty || !stored.entries.isEmpty
            return .here(waiting, restore: holdsSomething ? stored : nil)
        case .success(.nowhere):
            let creators = waiting.filter(\.creates)
            if !creators.isEmpty {
                parked[session] = creators
                toLocate.append(session)
            }
            return .here(waiting.filter { !$0.creates }, restore: nil)
        case .success(.elsewhere(let owner)):
            return .elsewhere(waiting, owner: owner)
        case .failure(let error):
            return .refused(waiting, reason: "cannot tell where session \(session) is served now (\(error.message))")
        }
    }

    /// The store does not answer (`reason`): every waiting HELLO is to be answered `storeUnavailable` now, by
    /// session; the store's answer, when it comes, finds none of them.
    mutating func refuseAll(because reason: String) -> [(hello: ParkedHello, refusal: String)] {
        defer { parked = [:] }
        return parked.sorted { $0.key < $1.key }.flatMap { session, hellos in
            hellos.map { ($0, "the fleet's database cannot say where session \(session) is served (\(reason))") }
        }
    }

    /// A session this instance took over: it owns it now.
    mutating func owns(_ session: SessionID) {
        owned.insert(session)
    }

    /// A session this instance ended, lost, or could not take over: it no longer owns it.
    mutating func disowns(_ session: SessionID) {
        owned.remove(session)
    }

    /// The sessions this instance holds that the store no longer says it owns: another instance took them over.
    func lost(owning stored: Set<String>) -> Set<String> {
        Set(owned.map(\.rawValue)).subtracting(stored)
    }

    /// The fleet's instances by name, this one among them even before the store lists it (`startedAt`: when this
    /// one started, ms since 1970), each with its own count of sessions.
    func instances(startedAt: Int64) -> [FleetMember] {
        var all = members.map { member in
            var member = member
            if member.name == instance.name {
                member.sessions = owned.count
            }
            return member
        }
        if !all.contains(where: { $0.name == instance.name }) {
            all.append(
                FleetMember(
                    name: instance.name,
                    control: instance.control,
                    events: instance.events,
                    alive: true,
                    leaseRemainingMilliseconds: instance.leaseMilliseconds,
                    sessions: owned.count,
                    startedAt: startedAt
                )
            )
        }
        return all.sorted { $0.name < $1.name }
    }
}
