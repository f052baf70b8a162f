import FlowCore
import FlowWire
import Foundation

extension Coordinator {
    /// Answers an inspector's question.
    mutating func query(_ query: Query, from peer: Peer, header: Header) {
        let session = query.arguments["session"]?.stringValue.map { SessionID($0) } ?? peer.session
        if let (code, message) = queryRefusal(query, from: peer, header: header, session: session) {
            reply(to: peer.id, correlation: header.id, error: code, message)
            return
        }
        switch answer(query, session: session, visibleTo: peer) {
        case .success(let result):
            send(.reply(Reply(result: result)), to: peer.id, session: session, correlation: header.id)
        case .failure(let code, let message):
            reply(to: peer.id, correlation: header.id, error: code, message)
        }
    }

    /// Why a QUERY is not answered, whatever it asks: a session not the sender's own, bad arguments, no session
    /// named where one is needed, a session not granted.
    private func queryRefusal(
        _ query: Query,
        from peer: Peer,
        header: Header,
        session: SessionID?
    ) -> (code: ErrorCode, message: String)? {
        if let registered = peer.session, let named = header.session, named != registered.rawValue {
            return (
                .wrongSession,
                "you are registered for session \(registered), not \(LogText.quoted(named))"
            )
        }
        if let problem = Self.argumentProblem(query.arguments) {
            return (.malformedBody, problem)
        }
        guard Self.sessionQueries.contains(query.what) else { return nil }
        guard let session else {
            return (
                .missingSession,
                "name the session: \"arguments.session\" (a peer of no session has none to default to)"
            )
        }
        return authorizationRefusal(of: peer, in: session, acting: query.what == "endSession").map {
            (.notAllowed, $0)
        }
    }

    /// The queries about one session.
    private static let sessionQueries: Set<String> = ["tree", "drops", "endSession", "steps"]

    /// The answer to a query, or why there is none.
    private enum Answer {
        case success(JSONValue)
        case failure(ErrorCode, String)
    }

    /// The answer to `query`, for `peer`.
    private mutating func answer(_ query: Query, session: SessionID?, visibleTo peer: Peer) -> Answer {
        let unknown = Answer.failure(.unknownSession, "name an existing session")
        switch query.what {
        case "sessions":
            return .success(sessionsReport(query.arguments, visibleTo: peer))
        case "registrations":
            return .success(registrationsReport(query.arguments, visibleTo: peer))
        case "stats":
            return .success((try? JSONValue(encoding: counters)) ?? .null)
        case "store":
            return .success(storeReport())
        case "fleet":
            return .success(fleetReport())
        case "flows":
            return .success((try? JSONValue(encoding: flowsReport())) ?? .null)
        case "tree":
            guard let session, let inspection = engine.inspect(session) else { return unknown }
            return .success((try? JSONValue(encoding: SessionTree(inspection))) ?? .null)
        case "steps":
            guard let session, let report = stepsReport(for: session) else { return unknown }
            return .success((try? JSONValue(encoding: report)) ?? .null)
        case "drops":
            guard let session, engine.hasSession(session) else { return unknown }
            return .success(drops(of: session, limit: query.arguments["limit"]?.intValue))
        case "endSession":
            guard let session, engine.hasSession(session) else { return unknown }
            endSession(session)
            return .success(["ended": .string(session.rawValue)])
        default:
            return .failure(
                .unknownQuery,
                "unknown query '\(query.what)'; ask for sessions, registrations, stats, store, fleet, tree, drops, flows, steps or endSession"
            )
        }
    }

    /// Whether `peer` may see `session` in lists (a grant lists only its sessions; a peer of no session sees none
    /// under a grant).
    private func lists(_ session: SessionID?, to peer: Peer) -> Bool {
        peer.grant.map { grant in session.map { grant.covers($0.rawValue) } ?? false } ?? true
    }

    /// The `sessions` query: a page of the sessions `peer` may see.
    private func sessionsReport(_ arguments: JSONObject, visibleTo peer: Peer) -> JSONValue {
        let page = Self.page(arguments, engine.sessionIDs.filter { lists($0, to: peer) }.map(\.rawValue).sorted())
        return .array(
            page.map { name in
                let id = SessionID(name)
                let inspection = engine.inspect(id)
                let activity = ledger.activity[id]
                return [
                    "session": .string(id.rawValue),
                    "ready": .bool(inspection?.isReady ?? false),
                    "flows": .int(inspection?.flows.count ?? 0),
                    "peers": .int(peers.all.filter { $0.session == id }.count),
                    "createdAt": activity.map { .int(Int($0.createdAt)) } ?? .null,
                    "lastActivity": activity.map { .int(Int($0.lastActivity)) } ?? .null,
                ]
            }
        )
    }

    /// The `registrations` query: a page of the peers of the sessions `peer` may see.
    private func registrationsReport(_ arguments: JSONObject, visibleTo viewer: Peer) -> JSONValue {
        let page = Set(Self.page(arguments, peers.all.filter { lists($0.session, to: viewer) }.map(\.id).sorted()))
        return .array(
            peers.all.filter { page.contains($0.id) }.sorted { $0.id < $1.id }.map { peer in
                [
                    "id": .string(peer.id), "name": .string(peer.name), "role": .string(peer.role.rawValue),
                    "session": peer.session.map { .string($0.rawValue) } ?? .null,
                    "lastHeard": .int(Int(peer.lastHeard + time.wallOffset)),
                ]
            }
        )
    }

    /// What is wrong with a QUERY's arguments, in the protocol's words: `session` and `after` are strings, `limit`
    /// an integer (`null` is as if left out).
    static func argumentProblem(_ arguments: JSONObject) -> String? {
        for key in ["session", "after"] {
            if let value = arguments[key], value != .null, value.stringValue == nil {
                return "\"arguments.\(key)\" must be a string, not \(value.kindName)"
            }
        }
        if let limit = arguments["limit"], limit != .null {
            guard case .int = limit else {
                return limit.doubleValue == nil
                    ? "\"arguments.limit\" must be an integer, not \(limit.kindName)"
                    : "\"arguments.limit\" must be an integer, without fraction or exponent, not \(limit)"
            }
        }
        return nil
    }

    /// The most entries a `sessions` or `registrations` reply holds: a client reads a long list page by page.
    static let pageLimit = 1000

    /// One page of `ids` (sorted): those after the `after` argument, at most `limit` (and ``pageLimit``).
    static func page(_ arguments: JSONObject, _ ids: [String]) -> ArraySlice<String> {
        let limit = min(max(arguments["limit"]?.intValue ?? pageLimit, 1), pageLimit)
        let after = arguments["after"]?.stringValue
        let start = after.map { after in ids.firstIndex { $0 > after } ?? ids.endIndex } ?? ids.startIndex
        return ids[start...].prefix(limit)
    }

    /// Sets a value of the session's data.
    mutating func sessionData(_ data: SessionDataMessage, from peer: Peer, header: Header) {
        guard let session = session(of: peer, header: header, acting: true) else { return }
        do {
            let value = data.value == .null ? nil : data.value
            try engine.setSessionData(data.key, value, session: session)
            record(.sessionData(key: data.key, value: value), session: session)
            inspect(.sessionData, session: session, ["key": .string(data.key), "value": data.value])
            send(
                .reply(Reply(result: ["key": .string(data.key)])),
                to: peer.id,
                session: session,
                correlation: header.id
            )
        } catch  where error.code == .limitReached {
            noteBoundHit("sessionData", "session \(LogText.quoted(session.rawValue)): \(error.message)", peer: peer.id)
            reply(to: peer.id, correlation: header.id, error: .sessionLimit, error.message)
        } catch {
            reply(to: peer.id, correlation: header.id, error: ErrorCode(error.code.rawValue), error.message)
        }
    }

    /// A guard's answer (its header names the question's session).
    mutating func guardAnswer(_ answer: GuardAnswer, from peer: Peer, header: Header) {
        guard peer.role == .guard, let session = header.session.map({ SessionID($0) }) else {
            reply(
                to: peer.id,
                correlation: header.id,
                error: .notAGuard,
                "only guards answer, naming the question's session in the header"
            )
            return
        }
        if let refusal = peer.session.flatMap({ $0 == session ? nil : "you are the guard of session \($0)" })
            ?? authorizationRefusal(of: peer, in: session, acting: true)
        {
            reply(
                to: peer.id,
                correlation: header.id,
                error: .notAllowed,
                "\(refusal): you may not answer for session \(LogText.quoted(session.rawValue))"
            )
            return
        }
        do {
            let effects = try engine.answerGuard(answer.question, allowed: answer.allowed, session: session)
            record(.guardAnswer(question: answer.question, allowed: answer.allowed), session: session)
            apply(effects)
        } catch {
            reply(to: peer.id, correlation: header.id, error: ErrorCode(error.code.rawValue), error.message)
        }
    }
}

extension JSONValue {
    /// Any encodable value as JSON.
    init(encoding value: some Encodable) throws {
        self = try FlowJSON.value(of: value)
    }
}
