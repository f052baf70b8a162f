import FlowCore
import FlowWire

/// What an API call asks of the connection's thread.
enum Request: Sendable {
    /// Send a step or a deep link, numbered, and resend it after reconnections until its fate comes.
    case emit(Outbound, fate: PendingReply<Fate>?)
    /// Send a message once registered (visibility, session data, a guard's answer); `session` goes in the header.
    case send(FlowWire.Message, session: String?)
    /// Report the screens visible in `screens` as visible, and those no longer visible as hidden.
    case reportVisible(ScreenTree)
    /// Report screens dismissed by the user, and remove them from the presenter's screens.
    case reportDismissed([PresentableID])
    /// Send a message the daemon answers with REPLY (QUERY, SESSION_DATA), and wait for the answer.
    case ask(FlowWire.Message, session: String?, reply: PendingReply<JSONValue>, timeout: Duration)
    /// Ask for a snapshot now.
    case resync
    /// Say BYE and stop; `done` is resumed once the thread has let go of everything.
    case close(done: PendingReply<Void>?)
}

/// A step or deep link as the API hands it over.
enum Outbound: Sendable {
    case step(Step, presentable: PresentableID?, session: String? = nil)
    case deepLink([Step], session: String? = nil)

    /// Refuses a step with a parameter named `_0`, `_1`...: a Swift enum case with an unlabelled associated value
    /// (`case itemIsPicked(Int)`) encodes it so, and no flow file declares such a parameter.
    func checkLabels() throws(FlowBusError) {
        let steps: [Step] =
            switch self {
            case .step(let step, _, _): [step]
            case .deepLink(let path, _): path
            }
        for step in steps {
            guard let unlabelled = step.parameters.keys.sorted().first(where: Self.isUnlabelled) else { continue }
            throw FlowBusError(
                .invalidOptions,
                "step '\(step.name)' has an unlabelled associated value (sent as '\(unlabelled)'): label it with the parameter's name, as in `case \(step.name)(itemId: Int)`"
            )
        }
    }

    /// `_0`, `_1`...: the key Swift's coding gives an enum case's unlabelled associated value.
    private static func isUnlabelled(_ key: String) -> Bool {
        key.count > 1 && key.first == "_" && key.dropFirst().allSatisfy(\.isNumber)
    }

    /// The session named in the header, when it is not the connection's own (an inspector injecting a step).
    var session: String? {
        switch self {
        case .step(_, _, let session), .deepLink(_, let session): session
        }
    }
}
