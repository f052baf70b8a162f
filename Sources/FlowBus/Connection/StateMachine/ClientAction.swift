import FlowCore
import FlowWire
import Logging

/// What the client's state machine asks its connection loop to do, in order. The machine decides; the loop owns the
/// sockets, the streams and the callers' replies, and carries these out.
enum ClientAction: Equatable {
    /// Send a message on the control connection (the loop stamps the sender and the time).
    case send(OutgoingMessage)
    /// Replace the connections with new ones to `target`, under the same routing id: the instance tried did not
    /// answer (a fleet's next one), flowd went silent, or a REDIRECT named another instance.
    case reconnect(to: Endpoints)
    /// A step no longer waits for its fate: count it out, and give the fate to whoever waits for it.
    case settleStep(PendingReply<Fate>?, Result<Fate, FlowBusError>)
    /// A message that waited for a REPLY has its answer (or its failure).
    case answer(PendingReply<JSONValue>, Result<JSONValue, FlowBusError>)
    /// The first WELCOME came: `connect` returns.
    case started
    /// The client never registered: `connect` fails with this.
    case startupFailed(FlowBusError)
    /// flowd's WELCOME, for the client's API to read.
    case welcomed(Welcome)
    /// A presenter's update for the application, with the screens it leaves.
    case present(PresenterUpdate)
    /// The presenter's screens changed without an update for the application (a tab selected, a dismissal).
    case publishScreens(ScreenTree)
    /// A guard question for the application.
    case question(GuardClient.Question)
    /// Something to say in the client's log.
    case log(Logger.Level, String)
    /// The application's streams end: the client has stopped.
    case endStreams
    /// A caller of `close` may go on: everything was let go.
    case closed(PendingReply<Void>)
    /// The loop stops (after the actions of this turn).
    case stop
}

/// A message for the control connection, numbered and encoded, without the sender and the time (the loop adds
/// them as it sends).
struct OutgoingMessage: Equatable, Sendable {
    /// The header's id: what flowd's answer names as its correlation.
    let id: UInt64
    /// The session its header names.
    let session: String?
    let type: MessageType
    let body: [UInt8]

    /// A send time as wide as any until the year 2286, to measure a header before it is sent.
    static let widestSentAt: Int64 = 9_999_999_999_999

    /// The frames to send, from `sender` at `sentAt` (milliseconds since 1970).
    func frames(_ codec: WireCodec, sender: String, sentAt: Int64) -> [[UInt8]] {
        codec.encode(header: Header(id: id, session: session, sender: sender, sentAt: sentAt), type: type, body: body)
    }
}
