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

    /// The session named in the header, when it is not the connection's own (an inspector injecting a step).
    var session: String? {
        switch self {
        case .step(_, _, let session), .deepLink(_, let session): session
        }
    }
}
