import FlowCore
import FlowSpec
import FlowStore
import FlowWire

extension Coordinator {
    /// Makes this coordinator an instance of a fleet: it serves the sessions it restored, and asks the store about
    /// any other.
    public mutating func joinFleet(as instance: FleetInstance) {
        fleet = FleetMembership(instance: instance, owned: Set(engine.sessionIDs))
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
        let parked = ParkedHello(hello: hello, peer: peer, userID: userID, correlation: correlation)
        return fleet?.park(parked, session: session, exists: engine.hasSession(session)) ?? false
    }

    /// The sessions to ask the fleet's store about, taken (each once), with whether a HELLO waiting for it would
    /// create it (a stepper's or a presenter's: then it is claimed when nobody owns it).
    mutating func takeSessionsToLocate() -> [TurnEffects.SessionToLocate] {
        fleet?.takeSessionsToLocate() ?? []
    }

    /// The store said where a session is served: its parked HELLOs go on here (the session restored from the store
    /// when another instance served it), or are sent to the instance that serves it.
    public mutating func located(_ session: SessionID, _ result: Result<SessionPlacement, StoreError>) -> [Outgoing] {
        turn.messages = []
        guard let placement = fleet?.located(session, result) else { return turn.messages }
        switch placement {
        case .here(let parked, let stored):
            if let stored {
                do {
                    let adopted = try adopt(stored)
                    setup.logger.info(
                        "took over a session from an instance whose lease expired",
                        metadata: ["session": "\(session)", "restored": "\(adopted.count)"]
                    )
                } catch {
                    setup.logger.error("cannot take over session \(session): \(error)")
                    fleet?.disowns(session)
                    for hello in parked {
                        refuseForStore(peer: hello.peer, correlation: hello.correlation, error.message)
                    }
                    return turn.messages
                }
            }
            for hello in parked {
                goOn(with: hello)
            }
        case .elsewhere(let parked, let owner):
            for hello in parked {
                redirect(hello, to: owner, session: session)
            }
        case .refused(let parked, let reason):
            for hello in parked {
                refuseForStore(peer: hello.peer, correlation: hello.correlation, reason)
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
        guard let reason = store.unavailable, fleet?.hasParkedHellos == true else { return }
        for (hello, refusal) in fleet?.refuseAll(because: reason) ?? [] {
            refuseForStore(peer: hello.peer, correlation: hello.correlation, refusal)
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
            fleet?.owns(session)
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
            fleet?.disowns(session)
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
        fleet?.lost(owning: stored) ?? []
    }

    /// The `fleet` query: this instance and the fleet's instances as the store last said (`{"fleet": false}` for a
    /// flowd of its own).
    func fleetReport() -> JSONValue {
        guard let fleet else { return ["fleet": false] }
        return [
            "fleet": true,
            "instance": .string(fleet.instance.name),
            "instances": .array(
                fleet.instances(startedAt: time.startedAt + time.wallOffset).map { member in
                    [
                        "name": .string(member.name),
                        "control": .array(member.control.map(JSONValue.string)),
                        "events": .array(member.events.map(JSONValue.string)),
                        "alive": .bool(member.alive),
                        "leaseRemaining": .int(Int(member.leaseRemainingMilliseconds)),
                        "sessions": .int(member.sessions),
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
