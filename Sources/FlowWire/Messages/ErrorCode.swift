/// The code of an ERROR: one of the specification's table, the same word on the wire in every language.
public struct ErrorCode: WireWord {
    /// The word on the wire.
    public let rawValue: String

    /// A word from its text.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    // Framing and decoding (``WireError``).

    /// The first frame is not a FlowBus protocol frame.
    public static let notFlowBus = Self("notFlowBus")
    /// A FlowBus protocol version this peer does not speak.
    public static let unsupportedVersion = Self("unsupportedVersion")
    /// Fewer or more frames than a message has.
    public static let wrongFrameCount = Self("wrongFrameCount")
    /// A message type this peer does not know.
    public static let unknownType = Self("unknownType")
    /// The header frame is not a valid header.
    public static let malformedHeader = Self("malformedHeader")
    /// The body frame is not a valid body for its type.
    public static let malformedBody = Self("malformedBody")
    /// A frame is larger than the limit.
    public static let tooLarge = Self("tooLarge")

    // Registration.

    /// A message before HELLO, or from a peer the daemon no longer knows: say HELLO again.
    public static let notRegistered = Self("notRegistered")
    /// HELLO's id is not the connection's routing id.
    public static let idMismatch = Self("idMismatch")
    /// With CURVE, the client's key is authorized for another id.
    public static let idNotAllowed = Self("idNotAllowed")
    /// A stepper or presenter HELLO without a session, or a message that needs one.
    public static let missingSession = Self("missingSession")
    /// The header names another session than the peer's own.
    public static let wrongSession = Self("wrongSession")
    /// Another connection has this role and name in the session.
    public static let nameTaken = Self("nameTaken")

    // Steps and reports.

    /// A step the flow file does not declare.
    public static let unknownStep = Self("unknownStep")
    /// A presenter speaks for a screen that is not its own.
    public static let foreignPresentable = Self("foreignPresentable")
    /// A report names a presentable the session does not have.
    public static let unknownPresentable = Self("unknownPresentable")
    /// VISIBILITY from a peer that is not a presenter.
    public static let notAPresenter = Self("notAPresenter")
    /// GUARD_ANSWER from a peer that is not a guard, or without a session.
    public static let notAGuard = Self("notAGuard")
    /// An answer to a guard question that is not pending.
    public static let unknownQuestion = Self("unknownQuestion")
    /// A message only the daemon sends.
    public static let unexpectedMessage = Self("unexpectedMessage")
    /// A query the daemon does not know.
    public static let unknownQuery = Self("unknownQuery")
    /// The session does not exist.
    public static let unknownSession = Self("unknownSession")
    /// A numbered step came before an earlier one of the same sender: resend in order.
    public static let sequenceGap = Self("sequenceGap")
    /// A numbered step whose fate is forgotten.
    public static let staleSequence = Self("staleSequence")
    /// The peer sends more messages (or bytes) per second than allowed.
    public static let flood = Self("flood")

    // Bounds.

    /// An id, name, session or step name is longer than ``WireLimits/maxIdentifierLength`` bytes.
    public static let tooLong = Self("tooLong")
    /// With CURVE, the client's key is not granted this session or this role (or, as a reading inspector, to act).
    public static let notAllowed = Self("notAllowed")
    /// A session cannot be created: flowd holds as many as it may, or this peer created too many lately.
    public static let sessionLimit = Self("sessionLimit")

    // Fleets.

    /// The daemon cannot tell now where the session is served (its store cannot be reached): say HELLO again later,
    /// or to another instance.
    public static let storeUnavailable = Self("storeUnavailable")
}

/// Bounds every peer must keep, whatever flowd's configuration.
public enum WireLimits {
    /// The longest id, name, session id, step name or session-data key, in bytes of UTF-8.
    public static let maxIdentifierLength = 128
    /// How deep arrays and objects may nest in a header or body.
    public static let maxNesting = 32
}

extension ErrorReply {
    /// An ERROR with a code of the table.
    public init(_ code: ErrorCode, message: String) {
        self.init(code: code.rawValue, message: message)
    }

    /// Its code, typed.
    public var errorCode: ErrorCode { ErrorCode(code) }
}
