import FlowCore
import FlowWire

extension Coordinator {
    /// Registers a peer (a restarted process takes over its id), creating its session when it is new. In a fleet,
    /// a HELLO for a session this instance does not own waits for the store (`located`: the store said nobody has it).
    mutating func hello(
        _ hello: Hello,
        from peer: String,
        userID: String?,
        correlation: UInt64,
        located: Bool = false
    ) {
        if let (code, message) = helloRefusal(hello, from: peer, userID: userID) {
            reply(to: peer, correlation: correlation, error: code, message)
            return
        }
        // While the store does not answer, nothing a HELLO would change can be written, nor its WELCOME sent:
        // refused at once, nothing changed (registered peers keep their registration).
        if let reason = store.unavailable {
            refuseForStore(peer: peer, correlation: correlation, reason)
            return
        }
        let session = hello.session.map { SessionID($0) }
        let name = Self.name(of: hello)
        if let session, let (code, message) = joiningRefusal(hello, session: session, name: name, peer: peer) {
            reply(to: peer, correlation: correlation, error: code, message)
            return
        }
        // Steppers and presenters create their session; an inspector or a guard waits for it (it changes nothing). A
        // creation is counted against the bounds once, before an instance of a fleet asks its store: a peer cannot
        // make it claim sessions beyond them.
        let creates = session.map { ParkedHello.creates(hello) && !engine.hasSession($0) } ?? false
        if creates, !located, let refusal = sessionCreationRefusal(by: peer) {
            reply(to: peer, correlation: correlation, error: .sessionLimit, refusal)
            return
        }
        // An instance of a fleet serves the sessions it owns: for another, the fleet's store says where it is served.
        if let session, !located,
            parksHello(hello, session: session, peer: peer, userID: userID, correlation: correlation)
        {
            return
        }
        var created = false
        if let session, creates {
            do {
                try startSession(session)
                created = true
            } catch {
                reply(to: peer, correlation: correlation, error: ErrorCode(error.code.rawValue), error.message)
                return
            }
        }
        register(
            hello,
            as: peer,
            name: name,
            grant: grant(for: userID),
            sessionCreated: created,
            correlation: correlation
        )
    }

    /// Why a HELLO is refused whatever the sessions hold: another protocol version, an id that is not the
    /// connection's or not its key's, a role or session its key is not granted, a reserved name, no session for a
    /// stepper or a presenter. `nil` when none of these.
    private func helloRefusal(_ hello: Hello, from peer: String, userID: String?) -> (code: ErrorCode, message: String)?
    {
        guard hello.protocolVersion == WireCodec.version else {
            return (
                .unsupportedVersion,
                "protocol version \(hello.protocolVersion) is not supported; this daemon speaks \(WireCodec.version)"
            )
        }
        guard hello.id == peer else {
            return (
                .idMismatch,
                "HELLO says id '\(LogText.quoted(hello.id))' but the connection's routing id is '\(LogText.routingID(peer))'; set the DEALER's routing id to your id"
            )
        }
        if let userID, userID != hello.id {
            return (.idNotAllowed, "your key is registered for '\(userID)', not '\(hello.id)'")
        }
        if let refusal = registrationRefusal(hello, grant: grant(for: userID)) {
            return (.notAllowed, refusal)
        }
        if let problem = Self.reservedNameProblem(hello) {
            return (.malformedBody, problem)
        }
        if hello.session == nil && (hello.role == .stepper || hello.role == .presenter) {
            return (.missingSession, "a \(hello.role.rawValue) must name its session")
        }
        return nil
    }

    /// Why a HELLO may not join `session` under `name`: the name is another connected peer's, or the session
    /// remembers as many senders as it may. Inspectors number their steps per connection, so several may share a
    /// name in a session (two flowctl emitting as the same stepper, or one started while the last one's BYE is
    /// still on its way).
    private mutating func joiningRefusal(
        _ hello: Hello,
        session: SessionID,
        name: String,
        peer: String
    ) -> (code: ErrorCode, message: String)? {
        if hello.role != .inspector,
            let other = peers.other(than: peer, in: session, role: hello.role, name: name)
        {
            return (
                .nameTaken,
                "\(hello.role.rawValue) '\(name)' of session \(session) is already connected as '\(other.id)'"
            )
        }
        if let refusal = senderLimitRefusal(session: session, role: hello.role, name: name, peer: peer) {
            return (.sessionLimit, refusal)
        }
        return nil
    }

    /// Registers the peer and welcomes it.
    private mutating func register(
        _ hello: Hello,
        as peer: String,
        name: String,
        grant: ClientGrant?,
        sessionCreated: Bool,
        correlation: UInt64
    ) {
        let session = hello.session.map { SessionID($0) }
        peers.add(
            Peer(
                id: peer,
                name: name,
                role: hello.role,
                session: session,
                grant: grant,
                lastHeard: now,
                lastSent: now,
                journalSender: setup.configuration.durable
                    ? session.map { session in
                        // Its steps' key: an inspector numbers them on its own connection (see `number`).
                        let name = hello.role == .inspector ? peer : name
                        return JournalSenderText(
                            stepper: StepperKey(session: session, role: hello.role, name: name),
                            peer: peer
                        )
                    } : nil
            )
        )
        let lastSequence = session.flatMap {
            acknowledgements.steppers[StepperKey(session: $0, role: hello.role, name: name)]?.lastSequence
        }
        let welcome = Welcome(
            daemonVersion: Self.version,
            id: peer,
            session: session?.rawValue,
            sessionCreated: sessionCreated,
            heartbeatInterval: Int(setup.configuration.heartbeatInterval.milliseconds),
            heartbeatTimeout: Int(setup.configuration.heartbeatTimeout.milliseconds),
            maxMessageSize: setup.configuration.maxMessageSize,
            lastSequence: lastSequence,
            epoch: setup.epoch
        )
        send(.welcome(welcome), to: peer, session: session, correlation: correlation)
        setup.logger.log(
            level: hello.role == .inspector ? .debug : .info,
            "registered",
            metadata: [
                "peer": "\(LogText.quoted(peer))", "name": "\(LogText.quoted(name))",
                "role": "\(hello.role.rawValue)", "session": "\(LogText.quoted(session?.rawValue ?? "-"))",
            ]
        )
        inspect(
            .registered,
            session: session,
            ["peer": .string(peer), "name": .string(name), "role": .string(hello.role.rawValue)]
        )
    }

    /// The name a HELLO registers: its `name`, else its id (a presenter's: the part after the id's last `/`, so that
    /// `kiosk-7/main` is presenter `main`, whose topic is `cmd/kiosk-7/main`).
    static func name(of hello: Hello) -> String {
        if let name = hello.name { return name }
        guard hello.role == .presenter, let slash = hello.id.lastIndex(of: "/") else { return hello.id }
        return String(hello.id[hello.id.index(after: slash)...])
    }

    /// Why a HELLO's session or name cannot be used, or `nil`: `-` stands for no session in topics (`inb/-/`), and a
    /// presenter's name ends its topic (`cmd/<session>/<name>`), so it holds no `/`.
    static func reservedNameProblem(_ hello: Hello) -> String? {
        if hello.session == "-" {
            return "session '-' is reserved: it stands for no session in topics (inb/-/, ins/-/)"
        }
        if hello.role == .presenter, case let name = Self.name(of: hello), name.contains("/") {
            return
                "a presenter's name may not hold '/' ('\(LogText.quoted(name))'): it ends its topic cmd/<session>/<name>; give a name (HELLO's name) without one"
        }
        return nil
    }

    /// Starts a session of the flows: its root flow and first steps.
    mutating func startSession(_ session: SessionID) throws(FlowCoreError) {
        let effects = try setup.specification.startSession(session, in: &engine)
        counters.sessionsCreated += 1
        ledger.started(session, at: time.wallNow)
        record(.sessionStarted, session: session)
        apply(effects)
    }

    /// A presenter is gone (it left, was silent too long, or flowd restarted): its visible screens become hidden.
    mutating func presenterLost(_ presenter: PresenterID, session: SessionID) {
        guard engine.showsVisibleScreens(of: presenter, session: session) else { return }
        let effects = engine.presenterLost(presenter, session: session)
        record(.presenterLost(presenter: presenter), session: session)
        apply(effects)
    }

    /// Forgets a peer; a presenter's screens become hidden (steps paused), not dismissed.
    mutating func unregister(_ peer: String, reason: String) {
        guard let registered = peers.remove(peer) else {
            return
        }
        // Said first, as an input is: then what it caused (a presenter's screens hidden).
        inspect(
            .unregistered,
            session: registered.session,
            [
                "peer": .string(peer), "name": .string(registered.name), "role": .string(registered.role.rawValue),
                "reason": .string(reason),
            ]
        )
        if registered.role == .presenter, let session = registered.session {
            presenterLost(PresenterID(registered.name), session: session)
        }
        if registered.role == .inspector {
            inspectorLeft(peer)
        }
        if let session = registered.session {
            ledger.used(session, at: time.wallNow)
        }
        // Inspectors (every flowctl call) come and go all day: their comings and goings are for debugging.
        setup.logger.log(
            level: registered.role == .inspector ? .debug : .info,
            "unregistered",
            metadata: ["peer": "\(LogText.quoted(peer))", "reason": "\(reason)"]
        )
    }
}

extension Coordinator {
    /// An inspector left: what it injected was numbered for its connection only, in every session.
    mutating func inspectorLeft(_ name: String) {
        for session in acknowledgements.steppers.removeInspector(named: name) {
            record(.inspectorLeft(name: name), session: session)
        }
    }
}
