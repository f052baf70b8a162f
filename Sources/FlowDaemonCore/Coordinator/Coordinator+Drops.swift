import FlowCore
import FlowWire

/// A step that was dropped, as `flowctl explain` shows it.
struct DroppedStep: Sendable, Hashable, Codable {
    /// When it was dropped (ms since 1970).
    let at: Int64
    let step: Step
    /// Who emitted it: `{"stepper": name}`, `{"presentable": id}` or `{"coordinator": true}`.
    let source: JSONValue
    /// The connection that sent it, when a peer did.
    let sender: String?
    /// Why, and what would have made it pass.
    let fate: WireFate

    var json: JSONValue {
        var fields: JSONObject = ["at": .int(Int(at)), "step": step.wireValue, "source": source]
        fields["sender"] = sender.map { .string($0) } ?? .null
        return .object(fields.merging(fate.wireFields) { $1 })
    }
}

extension Coordinator {
    /// Keeps a dropped step of an existing session (the last ``Acknowledgements/rememberedDrops``), for inspectors
    /// to explain.
    mutating func rememberDrop(
        of step: Step,
        from source: StepSource?,
        fate: StepFate,
        sender: PendingAcknowledgement?,
        session: SessionID
    ) {
        guard !fate.isAccepted, engine.hasSession(session) else { return }
        acknowledgements.remember(
            DroppedStep(at: time.wallNow, step: step, source: source.json, sender: sender?.peer, fate: WireFate(fate)),
            in: session
        )
    }

    /// The `drops` query: a session's last dropped steps, oldest first, at most `limit` of them.
    func drops(of session: SessionID, limit: Int?) -> JSONValue {
        .array(acknowledgements.drops(in: session, limit: limit).map(\.json))
    }
}
