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
