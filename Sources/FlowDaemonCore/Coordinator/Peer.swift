import FlowCore
import FlowWire

/// A registered peer: one DEALER connection that said HELLO.
struct Peer: Sendable, Hashable {
    /// Its connection id (= routing id).
    let id: String
    /// Its name in its session (stepper id, presenter display, guard name).
    let name: String
    let role: Role
    let session: SessionID?
    /// What its CURVE key is granted; `nil`: everything (no CURVE, or a key without a grant).
    var grant: ClientGrant? = nil
    /// When the daemon last heard from it and last sent to it (flowd's clock, ms).
    var lastHeard: Int64
    var lastSent: Int64
    /// When its message was last noted as its session's activity (flowd's clock; see
    /// `SessionLedger.activityResolution`).
    var activityNoted: Int64 = .min / 2
    /// The first members of its steps' journal entries (a durable flowd's peer registered for a session).
    var journalSender: JournalSenderText? = nil
}

/// A stepper's memory across reconnections: the sequences it sent and the fates they got.
struct StepperRecord: Sendable {
    var lastSequence: UInt64 = 0
    /// The outcomes of the last sequences decided.
    var acknowledgements = RecentOutcomes()
    /// Sequences taken in a turn that did not decide their fate: the fate is to come.
    var pending: Set<UInt64> = []

    /// A sequence is taken: the sender's next step must come after it. Its fate is decided in this turn, or the
    /// sequence is added to ``pending`` at its end.
    mutating func take(_ sequence: UInt64) {
        lastSequence = sequence
    }

    /// A sequence's outcome is decided: kept to answer the step if it is sent again, with the last `count` others.
    mutating func remember(_ outcome: StepOutcome, of sequence: UInt64, keeping count: Int) {
        if !pending.isEmpty {
            pending.remove(sequence)
        }
        acknowledgements.append(outcome, of: sequence, keeping: count)
    }
}

/// Who waits for a step's fate.
struct PendingAcknowledgement: Sendable, Hashable, Codable {
    let peer: String
    let stepper: StepperKey
    let sequence: UInt64
    let correlation: UInt64
    /// When the sender sent it (its header's `sentAt`, ms since 1970): inspectors measure latency from it.
    let sentAt: Int64
}

/// A sender of steps in a session, by its role and the name it registered with (a stepper and a presenter may
/// share a name; their sequences are their own).
struct StepperKey: Sendable, Hashable, Codable {
    let session: SessionID
    let role: Role
    let name: String
}
