import FlowCore

/// Who waits for which step's fate: each sender's sequences and the outcomes it was told, the steps whose fate is
/// still to come, and the last steps dropped in each session (for `flowctl explain`). No clock, no sockets.
struct Acknowledgements: Sendable {
    /// Each sender's sequences and recent outcomes, session by session.
    var steppers = StepperTable()
    /// Who waits for the fate of each step whose fate was not decided in the turn that took it in.
    private(set) var pending: [SessionID: [StepToken: PendingAcknowledgement]] = [:]
    /// The step being given to the engine now, and who waits for its fate.
    private var deciding: (token: StepToken, acknowledgement: PendingAcknowledgement)?
    /// The last steps dropped in each session, oldest first.
    private var recentDrops: [SessionID: [DroppedStep]] = [:]

    /// How many dropped steps are kept per session.
    static let rememberedDrops = 100

    // MARK: Fates

    /// A numbered step goes to the engine now: `acknowledgement` waits for its fate, which nearly always comes in
    /// the same turn (then nothing more is kept; see ``stillUndecided(sequence:)``).
    mutating func deciding(_ token: StepToken, for acknowledgement: PendingAcknowledgement) {
        deciding = (token, acknowledgement)
    }

    /// The engine is done with the step being decided: if its fate did not come, who waits for it is kept in
    /// ``pending`` and its sequence in its sender's record, to answer the step if it is sent again meanwhile.
    mutating func stillUndecided(sequence: UInt64) {
        guard let (token, acknowledgement) = deciding else { return }
        deciding = nil
        let key = acknowledgement.stepper
        pending[key.session, default: [:]][token] = acknowledgement
        steppers[key, default: StepperRecord()].pending.insert(sequence)
    }

    /// Who waits for the fate of a step, if anyone.
    func waiting(for token: StepToken, in session: SessionID) -> PendingAcknowledgement? {
        decidingNow(token, in: session) ?? pending[session]?[token]
    }

    /// Who waits for the fate of a step, taken: its fate is decided.
    mutating func settle(_ token: StepToken, in session: SessionID) -> PendingAcknowledgement? {
        if let now = decidingNow(token, in: session) {
            deciding = nil
            return now
        }
        return pending[session]?.removeValue(forKey: token)
    }

    private func decidingNow(_ token: StepToken, in session: SessionID) -> PendingAcknowledgement? {
        guard let deciding, deciding.token == token, deciding.acknowledgement.stepper.session == session else {
            return nil
        }
        return deciding.acknowledgement
    }

    /// Who waits in `session`, by step, in token order.
    func waiting(in session: SessionID) -> [(token: StepToken, acknowledgement: PendingAcknowledgement)] {
        (pending[session] ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Who waits in `session` and what was dropped there, as a restored record says.
    mutating func restore(
        waiting: [(token: StepToken, acknowledgement: PendingAcknowledgement)],
        drops: [DroppedStep],
        in session: SessionID
    ) {
        if !waiting.isEmpty {
            pending[session] = Dictionary(waiting.map { ($0.token, $0.acknowledgement) }) { _, last in last }
        }
        if !drops.isEmpty {
            recentDrops[session] = drops
        }
    }

    // MARK: Drops

    /// Keeps a dropped step (the last ``rememberedDrops`` of its session).
    mutating func remember(_ dropped: DroppedStep, in session: SessionID) {
        recentDrops[session, default: []].append(dropped)
        if let count = recentDrops[session]?.count, count > Self.rememberedDrops {
            recentDrops[session]?.removeFirst(count - Self.rememberedDrops)
        }
    }

    /// The last dropped steps of `session`, oldest first, at most `limit` of them (all when `nil`).
    func drops(in session: SessionID, limit: Int? = nil) -> ArraySlice<DroppedStep> {
        let drops = recentDrops[session] ?? []
        return drops.suffix(max(0, limit ?? drops.count))
    }

    // MARK: Sessions

    /// Forgets everything of a session (it ended, or another instance of a fleet took it over; `keepingSenders`:
    /// its senders' records stay).
    mutating func forget(_ session: SessionID, keepingSenders: Bool = false) {
        pending[session] = nil
        recentDrops[session] = nil
        if !keepingSenders {
            steppers.removeSession(session)
        }
    }
}
