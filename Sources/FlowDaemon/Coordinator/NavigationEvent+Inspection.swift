import FlowCore
import FlowWire

extension NavigationEvent {
    /// The event as the inspection stream publishes it: a kind and its fields.
    var inspection: (kind: String, fields: JSONObject) {
        switch kind {
        case .sessionStarted(let flow, let name):
            ("sessionStarted", ["rootFlow": .int(Int(flow.rawValue)), "name": .string(name)])
        case .sessionEnded:
            ("sessionEnded", [:])
        case .stepReceived(let token, let step, let source):
            ("stepReceived", ["token": .int(Int(token.rawValue)), "step": step.wireValue, "source": source.json])
        case .stepFate(let token, let step, let source, let fate):
            (
                "stepFate",
                ["token": .int(Int(token.rawValue)), "step": step.wireValue, "source": source.json].merging(fate.json) {
                    $1
                }
            )
        case .deepLinkReceived(let token, let path):
            ("deepLinkReceived", ["token": .int(Int(token.rawValue)), "path": .array(path.map(\.wireValue))])
        case .deepLinkWaiting(let token):
            ("deepLinkWaiting", ["token": .int(Int(token.rawValue))])
        case .willNavigate(let flow, let name, let step):
            ("willNavigate", ["flow": .int(Int(flow.rawValue)), "name": .string(name), "step": step.wireValue])
        case .didNavigate(let flow, let name, let step, let contributors):
            (
                "didNavigate",
                [
                    "flow": .int(Int(flow.rawValue)), "name": .string(name), "step": step.wireValue,
                    "contributors": .string(contributors),
                ]
            )
        case .adapted(let flow, let from, let to):
            ("adapted", ["flow": .int(Int(flow.rawValue)), "from": from.wireValue, "to": to.wireValue])
        case .commandRejected(let flow, let operation, let reason):
            (
                "commandRejected",
                ["flow": .int(Int(flow.rawValue)), "operation": .string(operation), "reason": .string(reason)]
            )
        case .flowStarted(let flow, let name, let parent, let root):
            (
                "flowStarted",
                [
                    "flow": .int(Int(flow.rawValue)), "name": .string(name),
                    "parent": parent.map { .int(Int($0.rawValue)) } ?? .null, "root": .int(Int(root.rawValue)),
                ]
            )
        case .flowReady(let flow):
            ("flowReady", ["flow": .int(Int(flow.rawValue))])
        case .flowEnded(let flow, let name, let reason):
            ("flowEnded", ["flow": .int(Int(flow.rawValue)), "name": .string(name), "reason": .string(reason)])
        case .forwardDroppedAtRoot(let flow, let step):
            ("forwardDroppedAtRoot", ["flow": .int(Int(flow.rawValue)), "step": step.wireValue])
        case .visibilityChanged(let presentable, let visibility):
            (
                "visibilityChanged",
                ["presentable": .int(Int(presentable.rawValue)), "visibility": .string(visibility.rawValue)]
            )
        case .guardAsked(let question, let name, let subject, let step):
            (
                "guardAsked",
                [
                    "question": .int(Int(question)), "guard": .string(name), "subject": .string(subject),
                    "step": step.wireValue,
                ]
            )
        case .guardAnswered(let question, let allowed, let timedOut):
            (
                "guardAnswered",
                ["question": .int(Int(question)), "allowed": .bool(allowed), "timedOut": .bool(timedOut)]
            )
        }
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
