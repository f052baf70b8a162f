import FlowCore

extension NavigationEvent {
    /// The event's kind in the inspection stream.
    public var inspectionKind: InspectionKind {
        switch kind {
        case .sessionStarted: .sessionStarted
        case .sessionEnded: .sessionEnded
        case .stepReceived: .stepReceived
        case .stepFate: .stepFate
        case .deepLinkReceived: .deepLinkReceived
        case .deepLinkWaiting: .deepLinkWaiting
        case .willNavigate: .willNavigate
        case .didNavigate: .didNavigate
        case .adapted: .adapted
        case .commandRejected: .commandRejected
        case .flowStarted: .flowStarted
        case .flowReady: .flowReady
        case .flowEnded: .flowEnded
        case .forwardDroppedAtRoot: .forwardDroppedAtRoot
        case .visibilityChanged: .visibilityChanged
        case .guardAsked: .guardAsked
        case .guardAnswered: .guardAnswered
        }
    }

    /// The event's fields in the inspection stream, as an object.
    public var inspectionFields: JSONObject {
        JSONObjectBuilder.object(writeInspectionFields)
    }

    /// The event's fields in the inspection stream, given one by one (written straight into an EVENTS body).
    public func writeInspectionFields<Members: JSONMembers>(to members: inout Members) {
        switch kind {
        case .sessionStarted(let flow, let flowName):
            members.member("rootFlow", Int(flow.rawValue))
            members.member("name", flowName)
        case .sessionEnded:
            break
        case .stepReceived(let token, let step, let source):
            members.member("token", Int(token.rawValue))
            members.member("step", object: step.writeMembers)
            members.member("source", object: source.writeMembers)
        case .stepFate(let token, let step, let source, let fate):
            members.member("token", Int(token.rawValue))
            members.member("step", object: step.writeMembers)
            members.member("source", object: source.writeMembers)
            WireFate(fate).writeMembers(to: &members)
        case .deepLinkReceived(let token, let path):
            members.member("token", Int(token.rawValue))
            members.member("path", .array(path.map(\.wireValue)))
        case .deepLinkWaiting(let token):
            members.member("token", Int(token.rawValue))
        case .willNavigate(let flow, let flowName, let step):
            members.member("flow", Int(flow.rawValue))
            members.member("name", flowName)
            members.member("step", object: step.writeMembers)
        case .didNavigate(let flow, let flowName, let step, let contributors):
            members.member("flow", Int(flow.rawValue))
            members.member("name", flowName)
            members.member("step", object: step.writeMembers)
            members.member("contributors", contributors)
        case .adapted(let flow, let from, let to):
            members.member("flow", Int(flow.rawValue))
            members.member("from", from.wireValue)
            members.member("to", to.wireValue)
        case .commandRejected(let flow, let operation, let reason):
            members.member("flow", Int(flow.rawValue))
            members.member("operation", operation)
            members.member("reason", reason)
        case .flowStarted(let flow, let flowName, let parent, let root):
            members.member("flow", Int(flow.rawValue))
            members.member("name", flowName)
            members.member("parent", parent.map { JSONValue.int(Int($0.rawValue)) } ?? .null)
            members.member("root", Int(root.rawValue))
        case .flowReady(let flow):
            members.member("flow", Int(flow.rawValue))
        case .flowEnded(let flow, let flowName, let reason):
            members.member("flow", Int(flow.rawValue))
            members.member("name", flowName)
            members.member("reason", reason)
        case .forwardDroppedAtRoot(let flow, let step):
            members.member("flow", Int(flow.rawValue))
            members.member("step", object: step.writeMembers)
        case .visibilityChanged(let presentable, let visibility):
            members.member("presentable", Int(presentable.rawValue))
            members.member("visibility", visibility.rawValue)
        case .guardAsked(let question, let guardName, let subject, let step):
            members.member("question", Int(question))
            members.member("guard", guardName)
            members.member("subject", subject)
            members.member("step", object: step.writeMembers)
        case .guardAnswered(let question, let allowed, let timedOut):
            members.member("question", Int(question))
            members.member("allowed", .bool(allowed))
            members.member("timedOut", .bool(timedOut))
        }
    }
}

extension Optional where Wrapped == StepSource {
    /// Where a step came from, as events give it: `{"stepper": name}`, `{"presentable": id}` or
    /// `{"coordinator": true}`.
    public func writeMembers<Members: JSONMembers>(to members: inout Members) {
        switch self {
        case .stepper(let id): members.member("stepper", id)
        case .presentable(let id): members.member("presentable", Int(id.rawValue))
        case nil: members.member("coordinator", .bool(true))
        }
    }

    public var json: JSONValue {
        .object(JSONObjectBuilder.object(writeMembers))
    }
}
