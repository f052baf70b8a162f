import FlowCore
import FlowWire

extension NavigationEvent {
    /// The event as the inspection stream publishes it: a kind, and its fields written so far (the caller may
    /// add members before finishing them).
    var inspection: (kind: String, fields: JSONObjectWriter) {
        var fields = JSONObjectWriter()
        let name: String
        switch kind {
        case .sessionStarted(let flow, let flowName):
            name = "sessionStarted"
            fields.member("rootFlow", Int(flow.rawValue))
            fields.member("name", flowName)
        case .sessionEnded:
            name = "sessionEnded"
        case .stepReceived(let token, let step, let source):
            name = "stepReceived"
            fields.member("token", Int(token.rawValue))
            fields.member("step", step.wireValue)
            fields.member("source", source.json)
        case .stepFate(let token, let step, let source, let fate):
            name = "stepFate"
            fields.member("token", Int(token.rawValue))
            fields.member("step", step.wireValue)
            fields.member("source", source.json)
            for (key, value) in fate.json {
                fields.member(key, value)
            }
        case .deepLinkReceived(let token, let path):
            name = "deepLinkReceived"
            fields.member("token", Int(token.rawValue))
            fields.member("path", .array(path.map(\.wireValue)))
        case .deepLinkWaiting(let token):
            name = "deepLinkWaiting"
            fields.member("token", Int(token.rawValue))
        case .willNavigate(let flow, let flowName, let step):
            name = "willNavigate"
            fields.member("flow", Int(flow.rawValue))
            fields.member("name", flowName)
            fields.member("step", step.wireValue)
        case .didNavigate(let flow, let flowName, let step, let contributors):
            name = "didNavigate"
            fields.member("flow", Int(flow.rawValue))
            fields.member("name", flowName)
            fields.member("step", step.wireValue)
            fields.member("contributors", contributors)
        case .adapted(let flow, let from, let to):
            name = "adapted"
            fields.member("flow", Int(flow.rawValue))
            fields.member("from", from.wireValue)
            fields.member("to", to.wireValue)
        case .commandRejected(let flow, let operation, let reason):
            name = "commandRejected"
            fields.member("flow", Int(flow.rawValue))
            fields.member("operation", operation)
            fields.member("reason", reason)
        case .flowStarted(let flow, let flowName, let parent, let root):
            name = "flowStarted"
            fields.member("flow", Int(flow.rawValue))
            fields.member("name", flowName)
            fields.member("parent", parent.map { JSONValue.int(Int($0.rawValue)) } ?? .null)
            fields.member("root", Int(root.rawValue))
        case .flowReady(let flow):
            name = "flowReady"
            fields.member("flow", Int(flow.rawValue))
        case .flowEnded(let flow, let flowName, let reason):
            name = "flowEnded"
            fields.member("flow", Int(flow.rawValue))
            fields.member("name", flowName)
            fields.member("reason", reason)
        case .forwardDroppedAtRoot(let flow, let step):
            name = "forwardDroppedAtRoot"
            fields.member("flow", Int(flow.rawValue))
            fields.member("step", step.wireValue)
        case .visibilityChanged(let presentable, let visibility):
            name = "visibilityChanged"
            fields.member("presentable", Int(presentable.rawValue))
            fields.member("visibility", visibility.rawValue)
        case .guardAsked(let question, let guardName, let subject, let step):
            name = "guardAsked"
            fields.member("question", Int(question))
            fields.member("guard", guardName)
            fields.member("subject", subject)
            fields.member("step", step.wireValue)
        case .guardAnswered(let question, let allowed, let timedOut):
            name = "guardAnswered"
            fields.member("question", Int(question))
            fields.member("allowed", .bool(allowed))
            fields.member("timedOut", .bool(timedOut))
        }
        return (name, fields)
    }
}

extension Optional where Wrapped == StepSource {
    var json: JSONValue {
        switch self {
        case .stepper(let id): ["stepper": .string(id)]
        case .presentable(let id): ["presentable": .int(Int(id.rawValue))]
        case nil: ["coordinator": true]
        }
    }
}

extension StepFate {
    /// The fate's fields as STEP_ACK carries them (one wire form of a fate, see `WireFate`).
    var json: JSONObject {
        WireFate(self).wireFields
    }
}
