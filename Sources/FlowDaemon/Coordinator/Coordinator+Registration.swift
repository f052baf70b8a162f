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
        guard hello.protocolVersion == WireCodec.version else {
            reply(
                to: peer,
                correlation: correlation,
                error: .unsupportedVersion,
                "protocol version \(hello.protocolVersion) is not supported; this daemon speaks \(WireCodec.version)"
            )
            return
        }
        guard hello.id == peer else {
            reply(
                to: peer,
                correlation: correlation,
                error: .idMismatch,
                "HELLO says id '\(LogText.quoted(hello.id))' but the connection's routing id is '\(LogText.routingID(peer))'; set the DEALER's routing id to your id"
            )
            return
        }
        if let userID, userID != hello.id {
            reply(
                to: peer,
                correlation: correlation,
                error: .idNotAllowed,
                "your key is registered for '\(userID)', not '\(hello.id)'"
            )
            return
        }
        let grant = grant(for: userID)
        if let refusal = registrationRefusal(hello, grant: grant) {
            reply(to: peer, correlation: correlation, error: .notAllowed, refusal)
            return
        }
        if let problem = Self.reservedNameProblem(hello) {
            reply(to: peer, correlation: correlation, error: .malformedBody, problem)
            return
        }
        let session = hello.session.map { SessionID($0) }
        if session == nil && (hello.role == .stepper || hello.role == .presenter) {
            reply(
                to: peer,
                correlation: correlation,
                error: .missingSession,
                "a \(hello.role.rawValue) must name its session"
            )
            return
        }
        // While the store does not answer, nothing a HELLO would change can be written, nor its WELCOME sent:
        // refused at once, nothing changed (registered peers keep their registration).
        if let reason = storeUnavailable {
            refuseForStore(peer: peer, correlation: correlation, reason)
            return
        }
        let name = Self.name(of: hello)
        // Inspectors number their steps per connection, so several may share a name in a session (two flowctl
        // emitting as the same stepper, or one started while the last one's BYE is still on its way).
        if let session, hello.role != .inspector,
            let other = peers.values.first(where: {
                $0.id != peer && $0.session == session && $0.role == hello.role && $0.name == name
            })
        {
            reply(
                to: peer,
                correlation: correlation,
                error: .nameTaken,
                "\(hello.role.rawValue) '\(name)' of session \(session) is already connected as '\(other.id)'"
            )
            return
        }
        if let session, let refusal = senderLimitRefusal(session: session, role: hello.role, name: name, peer: peer) {
            reply(to: peer, correlation: correlation, error: .sessionLimit, refusal)
            return
        }
        // Steppers and presenters create their session; an inspector or a guard waits for it (it changes nothing). A
        // creation is counted against the bounds once, before an instance of a fleet asks its store: a peer cannot
        // make it claim sessions beyond them.
        let creates = session.map { Self.creates(hello) && !engine.hasSession($0) } ?? false
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
        peers[peer] = Peer(
            id: peer,
            name: name,
            role: hello.role,
            session: session,
            grant: grant,
            lastHeard: now,
            lastSent: now,
            journalSender: configuration.durable
                ? session.map { session in
                    // Its steps' key: an inspector numbers them on its own connection (see `number`).
                    let name = hello.role == .inspector ? peer : name
                    return JournalSenderText(
                        stepper: StepperKey(session: session, role: hello.role, name: name),
                        peer: peer
                    )
                } : nil
        )
        let lastSequence = session.flatMap {
            steppers[StepperKey(session: $0, role: hello.role, name: name)]?.lastSequence
        }
        let welcome = Welcome(
            daemonVersion: Self.version,
            id: peer,
            session: session?.rawValue,
            sessionCreated: created,
            heartbeatInterval: Int(configuration.heartbeatInterval.milliseconds),
            heartbeatTimeout: Int(configuration.heartbeatTimeout.milliseconds),
            maxMessageSize: configuration.maxMessageSize,
            lastSequence: lastSequence,
            epoch: epoch
        )
        send(.welcome(welcome), to: peer, session: session, correlation: correlation)
        logger.log(
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
        let effects = try specification.startSession(session, in: &engine)
        counters.sessionsCreated += 1
        activity[session] = SessionActivity(createdAt: wallNow, lastActivity: wallNow)
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
        unverified.remove(peer)
        held[peer] = nil
        guard let registered = peers.removeValue(forKey: peer) else {
            return
        }
        if registered.role == .presenter, let session = registered.session {
            presenterLost(PresenterID(registered.name), session: session)
        }
        if registered.role == .inspector {
            inspectorLeft(peer)
        }
        if let session = registered.session {
            let wall = wallNow
            activity[session]?.lastActivity = wall
        }
        // Inspectors (every flowctl call) come and go all day: their comings and goings are for debugging.
        logger.log(
            level: registered.role == .inspector ? .debug : .info,
            "unregistered",
            metadata: ["peer": "\(LogText.quoted(peer))", "reason": "\(reason)"]
        )
        inspect(
            .unregistered,
            session: registered.session,
            [
                "peer": .string(peer), "name": .string(registered.name), "role": .string(registered.role.rawValue),
                "reason": .string(reason),
            ]
        )
    }
}

extension Coordinator {
    /// An inspector left: what it injected was numbered for its connection only, in every session.
    mutating func inspectorLeft(_ name: String) {
        for session in steppers.removeInspector(named: name) {
            record(.inspectorLeft(name: name), session: session)
        }
    }
}
