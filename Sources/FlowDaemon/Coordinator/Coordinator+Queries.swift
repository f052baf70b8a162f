import FlowCore
import FlowWire
import Foundation

extension Coordinator {
    /// Answers an inspector's question.
    mutating func query(_ query: Query, from peer: Peer, header: Header) {
        if let registered = peer.session, let named = header.session, named != registered.rawValue {
            reply(
                to: peer.id,
                correlation: header.id,
                error: .wrongSession,
                "you are registered for session \(registered), not \(LogText.quoted(named))"
            )
            return
        }
        if let problem = Self.argumentProblem(query.arguments) {
            reply(to: peer.id, correlation: header.id, error: .malformedBody, problem)
            return
        }
        let session = query.arguments["session"]?.stringValue.map { SessionID($0) } ?? peer.session
        if session == nil, ["tree", "drops", "endSession", "steps"].contains(query.what) {
            reply(
                to: peer.id,
                correlation: header.id,
                error: .missingSession,
                "name the session: \"arguments.session\" (a peer of no session has none to default to)"
            )
            return
        }
        if let session, ["tree", "drops", "endSession", "steps"].contains(query.what),
            let denial = authorizationRefusal(of: peer, in: session, acting: query.what == "endSession")
        {
            reply(to: peer.id, correlation: header.id, error: .notAllowed, denial)
            return
        }
        let visible = { (session: SessionID?) in
            peer.grant.map { grant in session.map { grant.covers($0.rawValue) } ?? false } ?? true
        }
        let result: JSONValue
        switch query.what {
        case "sessions":
            let page = Self.page(query.arguments, engine.sessionIDs.filter(visible).map(\.rawValue).sorted())
            result = .array(
                page.map { name in
                    let id = SessionID(name)
                    let inspection = engine.inspect(id)
                    let activity = activity[id]
                    return [
                        "session": .string(id.rawValue),
                        "ready": .bool(inspection?.isReady ?? false),
                        "flows": .int(inspection?.flows.count ?? 0),
                        "peers": .int(peers.values.filter { $0.session == id }.count),
                        "createdAt": activity.map { .int(Int($0.createdAt)) } ?? .null,
                        "lastActivity": activity.map { .int(Int($0.lastActivity)) } ?? .null,
                    ]
                }
            )
        case "registrations":
            let page = Set(Self.page(query.arguments, peers.values.filter { visible($0.session) }.map(\.id).sorted()))
            result = .array(
                peers.values.filter { page.contains($0.id) }.sorted { $0.id < $1.id }.map { peer in
                    [
                        "id": .string(peer.id), "name": .string(peer.name), "role": .string(peer.role.rawValue),
                        "session": peer.session.map { .string($0.rawValue) } ?? .null,
                        "lastHeard": .int(Int(peer.lastHeard + wallOffset)),
                    ]
                }
            )
        case "stats":
            result = (try? JSONValue(encoding: counters)) ?? .null
        case "store":
            result = storeReport()
        case "fleet":
            result = fleetReport()
        case "tree":
            guard let session, let inspection = engine.inspect(session) else {
                reply(to: peer.id, correlation: header.id, error: .unknownSession, "name an existing session")
                return
            }
            result = (try? JSONValue(encoding: SessionTree(inspection))) ?? .null
        case "flows":
            result = (try? JSONValue(encoding: flowsReport())) ?? .null
        case "steps":
            guard let session, let report = stepsReport(for: session) else {
                reply(to: peer.id, correlation: header.id, error: .unknownSession, "name an existing session")
                return
            }
            result = (try? JSONValue(encoding: report)) ?? .null
        case "drops":
            guard let session, engine.hasSession(session) else {
                reply(to: peer.id, correlation: header.id, error: .unknownSession, "name an existing session")
                return
            }
            result = drops(of: session, limit: query.arguments["limit"]?.intValue)
        case "endSession":
            guard let session, engine.hasSession(session) else {
                reply(to: peer.id, correlation: header.id, error: .unknownSession, "name an existing session")
                return
            }
            endSession(session)
            result = ["ended": .string(session.rawValue)]
        default:
            reply(
                to: peer.id,
                correlation: header.id,
                error: .unknownQuery,
                "unknown query '\(query.what)'; ask for sessions, registrations, stats, store, fleet, tree, drops, flows, steps or endSession"
            )
            return
        }
        send(.reply(Reply(result: result)), to: peer.id, session: session, correlation: header.id)
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
