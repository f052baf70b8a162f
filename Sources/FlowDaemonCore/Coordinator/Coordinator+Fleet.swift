import FlowCore
import FlowSpec
import FlowStore
import FlowWire

/// A HELLO waiting for the fleet's store to say where its session is served.
struct ParkedHello: Sendable {
    let hello: Hello
    let peer: String
    let userID: String?
    let correlation: UInt64
}

/// What an instance of a fleet knows of the fleet.
struct FleetState: Sendable {
    /// This instance.
    let instance: FleetInstance
    /// The sessions this instance owns in the store (restored, claimed, taken over), created yet or not.
    var owned: Set<SessionID> = []
    /// HELLOs waiting for the store, by session.
    var parked: [SessionID: [ParkedHello]] = [:]
    /// Sessions to ask the store about once the turn's writes are handed over.
    var toLocate: [SessionID] = []
    /// The fleet's instances, as last read from the store.
    var members: [FleetMember] = []
}

extension Coordinator {
    /// Makes this coordinator an instance of a fleet: it serves the sessions it restored, and asks the store about
    /// any other.
    public mutating func joinFleet(as instance: FleetInstance) {
        fleet = FleetState(instance: instance, owned: Set(engine.sessionIDs))
    }

    /// Parks a HELLO whose session this instance does not own: the store says where it is served after the turn.
    /// - Returns: whether it was parked.
    mutating func parksHello(
        _ hello: Hello,
        session: SessionID,
        peer: String,
        userID: String?,
        correlation: UInt64
    ) -> Bool {
        guard var fleet, !fleet.owned.contains(session), !engine.hasSession(session) else { return false }
        if fleet.parked[session] == nil {
            fleet.toLocate.append(session)
        }
        // A HELLO said again while the first waits replaces it: one answer per peer.
        fleet.parked[session, default: []].removeAll { $0.peer == peer }
        fleet.parked[session, default: []].append(
            ParkedHello(hello: hello, peer: peer, userID: userID, correlation: correlation)
        )
        self.fleet = fleet
        return true
    }

    /// The sessions to ask the fleet's store about, taken (each once), with whether a HELLO waiting for it would
    /// create it (a stepper's or a presenter's: then it is claimed when nobody owns it).
    mutating func takeSessionsToLocate() -> [TurnEffects.SessionToLocate] {
        guard let fleet, !fleet.toLocate.isEmpty else { return [] }
        self.fleet?.toLocate = []
        return fleet.toLocate.map { session in
            (session, fleet.parked[session, default: []].contains { Self.creates($0.hello) })
        }
    }

    /// Whether a HELLO creates its session when it is new (a stepper's or a presenter's).
    static func creates(_ hello: Hello) -> Bool {
        hello.role == .stepper || hello.role == .presenter
    }

    /// The store said where a session is served: its parked HELLOs go on here (the session restored from the store
    /// when another instance served it), or are sent to the instance that serves it.
    public mutating func located(_ session: SessionID, _ result: Result<SessionPlacement, StoreError>) -> [Outgoing] {
        turn.messages = []
        let parked = fleet?.parked.removeValue(forKey: session) ?? []
        switch result {
        case .success(.here(let stored)):
            fleet?.owned.insert(session)
            if !stored.snapshots.isEmpty || !stored.entries.isEmpty {
                do {
                    let adopted = try adopt(stored)
                    setup.logger.info(
                        "took over a session from an instance whose lease expired",
                        metadata: ["session": "\(session)", "restored": "\(adopted.count)"]
                    )
                } catch {
                    setup.logger.error("cannot take over session \(session): \(error)")
                    fleet?.owned.remove(session)
                    for hello in parked {
                        refuseForStore(peer: hello.peer, correlation: hello.correlation, error.message)
                    }
                    return turn.messages
                }
            }
            for hello in parked {
                goOn(with: hello)
            }
        case .success(.nowhere):
            // No instance has it: an inspector or a guard waits for it here, as on a flowd of its own. A stepper's
            // or presenter's HELLO that came while the store was asked without claiming asks again, claiming.
            let creators = parked.filter { Self.creates($0.hello) }
            if !creators.isEmpty {
                fleet?.parked[session] = creators
                fleet?.toLocate.append(session)
            }
            for hello in parked where !Self.creates(hello.hello) {
                goOn(with: hello)
            }
        case .success(.elsewhere(let owner)):
            for hello in parked {
                redirect(hello, to: owner, session: session)
            }
        case .failure(let error):
            for hello in parked {
                refuseForStore(
                    peer: hello.peer,
                    correlation: hello.correlation,
                    "cannot tell where session \(session) is served now (\(error.message))"
                )
            }
        }
        return turn.messages
    }

    /// Answers `storeUnavailable`, at once (it describes no state), to a HELLO the store cannot serve now.
    mutating func refuseForStore(peer: String, correlation: UInt64, _ reason: String) {
        reply(
            to: peer,
            correlation: correlation,
            error: .storeUnavailable,
            "the store does not answer: \(reason); nothing was changed: say HELLO again in a second (or to another instance)",
            atOnce: true
        )
    }

    /// Answers `storeUnavailable` to the HELLOs waiting for the fleet's store while it does not answer (the server
    /// says so every tick, within a second of the first failure): a client learns that the database is down, rather
    /// than nothing. A store that answers slowly (a burst of new sessions behind a group commit) is waited for. The
    /// store's answer, when it comes, finds none of them.
    mutating func refuseParkedHellosWhileStoreIsDown() {
        guard let reason = store.unavailable, let parked = fleet?.parked, !parked.isEmpty else { return }
        fleet?.parked = [:]
        for (session, hellos) in parked.sorted(by: { $0.key < $1.key }) {
            for hello in hellos {
                refuseForStore(
                    peer: hello.peer,
                    correlation: hello.correlation,
                    "the fleet's database cannot say where session \(session) is served (\(reason))"
                )
            }
        }
    }

    /// Takes a parked HELLO here, its session located.
    private mutating func goOn(with parked: ParkedHello) {
        hello(parked.hello, from: parked.peer, userID: parked.userID, correlation: parked.correlation, located: true)
    }

    /// Sends a parked HELLO's peer to the instance that serves its session.
    private mutating func redirect(_ hello: ParkedHello, to owner: FleetMember, session: SessionID) {
        counters.redirects += 1
        send(
            .redirect(
                Redirect(session: session.rawValue, instance: owner.name, control: owner.control, events: owner.events)
            ),
            to: hello.peer,
            session: session,
            correlation: hello.correlation
        )
        setup.logger.debug(
            "redirected a HELLO",
            metadata: ["peer": "\(LogText.quoted(hello.peer))", "session": "\(session)", "instance": "\(owner.name)"]
        )
    }

    /// Takes over sessions the store gave this instance (from instances whose lease expired): each is restored
    /// exactly, on its own, as a restart would (its journal replayed, its presenters gone until they come back, its
    /// guard questions asked again), then joins the sessions this instance runs, and is written whole with the
    /// turn's group.
    /// - Returns: the sessions taken over.
    /// A session written with other flows (the instance that wrote it ran another flows file) is replayed with those,
    /// then goes on with this instance's; one that uses a flow this instance's flows lack is ended, and named in an
    /// error.
    @discardableResult
    public mutating func adopt(_ stored: StoredState) throws(StoreError) -> [SessionID] {
        let written: FlowSpecification
        do {
            written = try stored.flowsWrittenWith(current: setup.specification)
        } catch {
            throw StoreError(
                .invalidRecord,
                "the flows the sessions were written with cannot be read: \(error.message)"
            )
        }
        var (restored, _) = try Coordinator.restoring(
            stored,
            specification: written,
            configuration: setup.configuration,
            epoch: setup.epoch,
            now: now,
            logger: setup.logger
        )
        if written.source != setup.specification.source {
            do {
                let ended = try restored.switchFlows(to: setup.specification, droppingMissing: true)
                for session in ended where store.journal.isEnabled {
                    // Gone from the store too, as any ended session.
                    store.journal.remove(session)
                }
                if !ended.isEmpty {
                    setup.logger.error(
                        "sessions taken over from an instance that ran other flows use flows this instance's flows file lacks: they are ended; run the same flows file on every instance",
                        metadata: ["sessions": "\(ended.map(\.rawValue).joined(separator: " "))"]
                    )
                }
            } catch {
                throw StoreError(.invalidRecord, "the sessions cannot go on with this instance's flows: \(error)")
            }
            setup.logger.warning(
                "took over sessions written with another flows file (\(written.file)): they go on with this instance's; run the same flows file on every instance"
            )
        }
        _ = restored.restarted()
        var adopted: [SessionID] = []
        for session in restored.engine.sessionIDs where !engine.hasSession(session) {
            guard let record = restored.sessionRecord(of: session) else { continue }
            do {
                try resume(record)
            } catch {
                setup.logger.error("cannot take over session \(session): \(error)")
                continue
            }
            store.journal.snapshotDue.insert(session)
            fleet?.owned.insert(session)
            adopted.append(session)
        }
        let taken = Set(adopted)
        for request in engine.pendingGuardRequests where taken.contains(request.session) {
            ask(request)
        }
        counters.sessionsAdopted += adopted.count
        return adopted
    }

    /// The store refused to write sessions another instance took over (this one was paused past its lease): they
    /// are forgotten here, without a word to the store, and their peers are told to say HELLO again (they are then
    /// sent to the instance that serves the session now).
    public mutating func forgetLost(_ sessions: Set<String>) -> [Outgoing] {
        turn.messages = []
        for name in sessions.sorted() {
            let session = SessionID(name)
            fleet?.owned.remove(session)
            guard engine.hasSession(session) else { continue }
            // Its screens stay as they are: the instance that serves the session now decides.
            _ = engine.endSession(session)
            for id in peers.removeAll(in: session) {
                send(
                    .error(
                        ErrorReply(
                            .notRegistered,
                            message: "session \(session) is served by another instance now: say HELLO again"
                        )
                    ),
                    to: id,
                    session: nil,
                    correlation: nil
                )
            }
            acknowledgements.forget(session)
            ledger.forget(session)
            store.journal.forget(session)
            counters.sessionsLost += 1
            setup.logger.warning(
                "another instance took this session over (this one was away past its lease): forgotten here",
                metadata: ["session": "\(session)"]
            )
        }
        return turn.messages
    }

    /// Takes over sessions of dead instances the store gave this instance; returns them, and what their restore
    /// sends (guard questions asked again).
    public mutating func adoptOrphans(_ stored: StoredState) -> ([SessionID], [Outgoing]) {
        turn.messages = []
        do {
            return (try adopt(stored), turn.messages)
        } catch {
            setup.logger.error("cannot take over sessions of a dead instance: \(error)")
            return ([], turn.messages)
        }
    }

    /// The sessions this instance holds that the store no longer says it owns: another instance took them over.
    public func sessionsLost(owning stored: Set<String>) -> Set<String> {
        guard let fleet else { return [] }
        return Set(fleet.owned.map(\.rawValue)).subtracting(stored)
    }

    /// The `fleet` query: this instance and the fleet's instances as the store last said (`{"fleet": false}` for a
    /// flowd of its own).
    func fleetReport() -> JSONValue {
        guard let fleet else { return ["fleet": false] }
        var members = fleet.members
        if !members.contains(where: { $0.name == fleet.instance.name }) {
            members.append(
                FleetMember(
                    name: fleet.instance.name,
                    control: fleet.instance.control,
                    events: fleet.instance.events,
                    alive: true,
                    leaseRemainingMilliseconds: fleet.instance.leaseMilliseconds,
                    sessions: fleet.owned.count,
                    startedAt: time.startedAt + time.wallOffset
                )
            )
        }
        return [
            "fleet": true,
            "instance": .string(fleet.instance.name),
            "instances": .array(
                members.sorted { $0.name < $1.name }.map { member in
                    [
                        "name": .string(member.name),
                        "control": .array(member.control.map(JSONValue.string)),
                        "events": .array(member.events.map(JSONValue.string)),
                        "alive": .bool(member.alive),
                        "leaseRemaining": .int(Int(member.leaseRemainingMilliseconds)),
                        "sessions": .int(member.name == fleet.instance.name ? fleet.owned.count : member.sessions),
                        "startedAt": .int(Int(member.startedAt)),
                    ]
                }
            ),
        ]
    }

    /// The fleet's instances, as the store last said.
    public mutating func noteMembers(_ members: [FleetMember]) {
        fleet?.members = members
    }
}
