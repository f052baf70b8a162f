import FlowCore

/// What flowd keeps of each session beside the engine's tree: when it was created and last used (for idle
/// sessions and the `sessions` query), and the sequence of the last COMMANDS sent to each of its presenters. No
/// clock: it is told the time.
struct SessionLedger: Sendable {
    /// When each session was created and last used (wall clock, ms).
    private(set) var activity: [SessionID: SessionActivity] = [:]
    /// The sequence of the last COMMANDS sent to each presenter of each session (a small table: most sessions have
    /// one presenter, and a dictionary of one took 118 bytes).
    private(set) var commandSequences: [SessionID: SmallTable<PresenterID, UInt64>] = [:]
    /// When idle sessions were last looked for, on flowd's clock.
    private var lastIdleCheck: Int64

    /// How often a session's last activity is noted while its peers speak (milliseconds): to the second is enough
    /// for idle sessions and the `sessions` query, without a lookup per message (a peer that leaves notes it to the
    /// millisecond).
    static let activityResolution: Int64 = 1000
    /// How often idle sessions are looked for (milliseconds).
    static let idleCheckInterval: Int64 = 10_000
    /// The most idle sessions ended at one look: ending many at once must not stall the loop (the rest go next time).
    static let idleSessionsPerCheck = 1000

    init(now: Int64) {
        lastIdleCheck = now
    }

    /// A restored run starts at `now`: idle sessions are looked for from then on.
    mutating func restart(at now: Int64) {
        lastIdleCheck = now
    }

    // MARK: Activity

    /// A session was created at `wall`.
    mutating func started(_ session: SessionID, at wall: Int64) {
        activity[session] = SessionActivity(createdAt: wall, lastActivity: wall)
    }

    /// A session was used at `wall`.
    mutating func used(_ session: SessionID, at wall: Int64) {
        activity[session]?.lastActivity = wall
    }

    /// The sessions to end as idle `now`, at most ``idleSessionsPerCheck`` in id order, with when each was last
    /// used: none `occupied` gives (a peer is registered in them), none used since `cutoff` (wall clock), and none at
    /// all unless a check is due (every ``idleCheckInterval``, or `expiry` when shorter).
    mutating func idleSessions(
        now: Int64,
        expiry: Int64,
        cutoff: Int64,
        runStarted: Int64,
        occupied: () -> Set<SessionID>
    ) -> [(session: SessionID, lastActivity: Int64)] {
        guard now - lastIdleCheck >= min(Self.idleCheckInterval, expiry) else { return [] }
        lastIdleCheck = now
        // Which sessions have peers is looked at only when a check is due (it goes through every peer).
        let occupied = occupied()
        return
            activity
            .filter { session, activity in
                !occupied.contains(session) && max(activity.lastActivity, runStarted) <= cutoff
            }
            .sorted { $0.key < $1.key }
            .prefix(Self.idleSessionsPerCheck)
            .map { ($0.key, $0.value.lastActivity) }
    }

    // MARK: Commands

    /// The sequence of the next COMMANDS to `presenter` of `session`, counted as sent.
    mutating func nextCommandSequence(of session: SessionID, to presenter: PresenterID) -> UInt64 {
        Self.advance(&commandSequences[session, default: [:]], of: presenter)
    }

    /// One more for `presenter` in place (one lookup of the session, one of the presenter).
    private static func advance(_ table: inout SmallTable<PresenterID, UInt64>, of presenter: PresenterID) -> UInt64 {
        guard let index = table.index(forKey: presenter) else {
            table[presenter] = 1
            return 1
        }
        return table.inPlace(at: index) { sequence in
            sequence += 1
            return sequence
        }
    }

    /// The sequence of the last COMMANDS sent to `presenter` of `session` (0: none yet).
    func commandSequence(of session: SessionID, to presenter: PresenterID) -> UInt64 {
        commandSequences[session]?[presenter] ?? 0
    }

    /// Whether COMMANDS were ever sent to `presenter` of `session`.
    func hasSentCommands(in session: SessionID, to presenter: PresenterID) -> Bool {
        commandSequences[session]?[presenter] != nil
    }

    // MARK: Sessions

    /// A session brought back from its record.
    mutating func restore(_ session: SessionID, activity: SessionActivity, commandSequences: [String: UInt64]) {
        self.activity[session] = activity
        self.commandSequences[session] = SmallTable(
            uniqueKeysWithValues: commandSequences.map { (PresenterID($0.key), $0.value) }
        )
    }

    /// Forgets a session.
    mutating func forget(_ session: SessionID) {
        activity[session] = nil
        commandSequences[session] = nil
    }
}
