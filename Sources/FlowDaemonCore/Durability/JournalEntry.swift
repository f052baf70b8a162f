import FlowCore
import FlowWire

/// An input that changed a session, as the journal keeps it. The coordinator is deterministic: replayed in order
/// on the state it was first applied to, an entry changes the session exactly as it did then (the same flows,
/// screens, command sequences and fates).
struct JournalEntry: Sendable, Hashable, Codable {
    /// The session it changed.
    let session: SessionID
    /// The engine's time when it was applied (milliseconds on flowd's clock): deadlines that fell before it fire
    /// first, as they did.
    let time: Int64
    /// The wall clock then (milliseconds since 1970), for the timestamps it leaves behind.
    let wall: Int64
    /// What happened.
    let input: JournalInput
}

/// What a journal entry records.
enum JournalInput: Sendable, Hashable, Codable {
    /// A HELLO named a new session: its root flow started.
    case sessionStarted
    /// A STEP was taken with its number and given to the engine.
    case step(stepper: StepperKey, sequence: UInt64, step: Step, source: StepSource, sender: StepSender)
    /// A DEEPLINK was taken with its number and given to the engine.
    case deepLink(stepper: StepperKey, sequence: UInt64, path: [Step], sender: StepSender)
    /// A numbered STEP or DEEPLINK was refused: it took its number, and its refusal is remembered.
    case refused(stepper: StepperKey, sequence: UInt64, refusal: StepRefusal)
    /// A presenter's visibility report was applied.
    case visibility(presenter: PresenterID, visibility: Visibility, presentables: [PresentableID])
    /// A presenter left (or flowd restarted): its visible screens became hidden.
    case presenterLost(presenter: PresenterID)
    /// A value of the session's data was set (`nil`: removed).
    case sessionData(key: String, value: JSONValue?)
    /// A guard answered a question.
    case guardAnswer(question: UInt64, allowed: Bool)
    /// Time passed: deadlines (a deep link's wait, a guard's answer) fell and changed the session.
    case timePassed
    /// An inspector left: the steps it injected were numbered for its connection only.
    case inspectorLeft(name: String)
}

extension JournalInput {
    /// Whether the input creates its session (the only one recorded for a session that does not exist yet).
    var startsSession: Bool {
        if case .sessionStarted = self { true } else { false }
    }
}

/// Who sent a numbered step, and what its acknowledgement answers.
struct StepSender: Sendable, Hashable, Codable {
    /// The connection's id.
    let peer: String
    /// The message's id, the acknowledgement's `correlation`.
    let correlation: UInt64
    /// The sender's `sentAt`.
    let sentAt: Int64
}
