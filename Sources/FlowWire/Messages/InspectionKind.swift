/// The kind of an inspection event (EVENT's `kind`, an EVENTS entry's `kind`): the specification's table, the same
/// word on the wire in every language.
public struct InspectionKind: WireWord {
    /// The word on the wire.
    public let rawValue: String

    /// A word from its text.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let sessionStarted = Self("sessionStarted")
    public static let sessionEnded = Self("sessionEnded")
    public static let stepReceived = Self("stepReceived")
    public static let stepFate = Self("stepFate")
    public static let deepLinkReceived = Self("deepLinkReceived")
    public static let deepLinkWaiting = Self("deepLinkWaiting")
    public static let willNavigate = Self("willNavigate")
    public static let didNavigate = Self("didNavigate")
    public static let adapted = Self("adapted")
    public static let commandRejected = Self("commandRejected")
    public static let flowStarted = Self("flowStarted")
    public static let flowReady = Self("flowReady")
    public static let flowEnded = Self("flowEnded")
    public static let forwardDroppedAtRoot = Self("forwardDroppedAtRoot")
    public static let visibilityReported = Self("visibilityReported")
    public static let visibilityChanged = Self("visibilityChanged")
    public static let sessionData = Self("sessionData")
    public static let guardAsked = Self("guardAsked")
    public static let guardAnswered = Self("guardAnswered")
    public static let guardMissing = Self("guardMissing")
    public static let registered = Self("registered")
    public static let unregistered = Self("unregistered")
    public static let error = Self("error")
    /// A command batch, as an entry of EVENTS (its `fields` are the COMMANDS body).
    public static let commands = Self("commands")

    /// Every kind flowd publishes.
    public static let all: [InspectionKind] = [
        .sessionStarted, .sessionEnded, .stepReceived, .stepFate, .deepLinkReceived, .deepLinkWaiting, .willNavigate,
        .didNavigate, .adapted, .commandRejected, .flowStarted, .flowReady, .flowEnded, .forwardDroppedAtRoot,
        .visibilityReported, .visibilityChanged, .sessionData, .guardAsked, .guardAnswered, .guardMissing,
        .registered, .unregistered, .error, .commands,
    ]
}

extension InspectionEvent {
    /// Its kind, typed.
    public var inspectionKind: InspectionKind { InspectionKind(kind) }
}
