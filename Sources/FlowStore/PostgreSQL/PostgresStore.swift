import Foundation

/// The fleet's store: one PostgreSQL database shared by several flowd instances, through libpq.
///
/// Each instance registers under its name when it loads ( ``load()`` ), which gives it a new fencing token and the
/// sessions its name owned; from then on it writes only sessions whose row carries its token, checked in every
/// transaction under a lock on its own row of `flowbus_instances` (another instance taking a session over locks the
/// same row first, so the two never interleave). A lost connection is retried while ``availability`` allows (its
/// retry window from the start of the outage, until flowd stops): a transaction cut off by it is written again only
/// if it did not commit (each transaction counts itself in the instance's row). A server that is starting,
/// recovering or a standby not promoted yet is waited for as one that is down.
///
/// `@unchecked Sendable`: a store is handed from thread to thread (opened by flowd's main thread, then written by
/// the journal writer's), and used by one at a time.
public final class PostgresStore: FleetStore, @unchecked Sendable {
    /// This instance.
    public let instance: FleetInstance
    /// Whether the database answers, and how long a lost connection is retried before a call fails.
    public let availability: StoreAvailability
    let url: String
    let durability: Durability
    var connection: PostgresConnection
    /// The fencing token this instance registered with (0 before ``load()``).
    public private(set) var token: Int64 = 0
    /// Transactions this registration committed.
    private var commits: Int64 = 0
    /// How many takeovers from this instance ``ownedSessionsIfTaken()`` saw last (`flowbus_instances.taken`).
    var takenSeen: Int64 = 0
    private var counts = StoreStatistics()
    private var totalWriteMicroseconds = 0
    private var sizeMeasured: ContinuousClock.Instant?

    /// Connects (retrying while `availability` allows when the server cannot be reached), then creates or checks the tables.
    /// - Throws: ``StoreError`` `.unavailable` when the server cannot be reached, `.newerFormat` or `.corrupted`
    ///   for tables flowd must not use.
    /// - Parameters:
    ///   - url: the database (`postgres://user:password@host/database`, or libpq's `key=value` form).
    ///   - instance: this instance, as the fleet knows it.
    ///   - durability: what a commit waits for (``Durability``, as `synchronous_commit`).
    ///   - availability: where outages are told, and how long a lost connection is retried before a call fails.
    ///   - waiting: told once when the server cannot be reached yet and is waited for.
    public init(
        url: String,
        instance: FleetInstance,
        durability: Durability,
        availability: StoreAvailability = StoreAvailability(),
        waiting: ((String) -> Void)? = nil
    ) throws(StoreError) {
        self.url = url
        self.instance = instance
        self.durability = durability
        self.availability = availability
        connection = try Self.connect(
            url,
            durability: durability,
            idleTransactionLimit: instance.leaseMilliseconds,
            availability: availability,
            waiting: waiting
        )
        try PostgresSchema.prepare(connection)
        counts.location = connection.location
        counts.durability = durability.rawValue
    }

    /// One connection to `url`, set up for the journal (its commits' durability, its transactions' time limit), or
    /// an error; a standby in recovery is refused.
    static func openOnce(
        _ url: String,
        durability: Durability,
        idleTransactionLimit: Int64
    ) throws(StoreError) -> PostgresConnection {
        let connection = try PostgresConnection(url: url)
        let recovering = try connection.run("SELECT pg_is_in_recovery()")
        if recovering.count == 1 && recovering.boolean(0, 0) {
            throw StoreError(
                .unavailable,
                "PostgreSQL at \(connection.location) is a standby in recovery (read-only): waiting for it to be promoted"
            )
        }
        // What a commit waits for. `fsync`: the server's disk and its synchronous standbys (`on`). `os`: the
        // server's own disk (`local`): a commit survives flowd and the server killed at any moment. `off`:
        // nothing (`off`): a crash of the server may lose the last commits, never leaving the journal
        // inconsistent.
        let commit = ["fsync": "on", "os": "local", "off": "off"][durability.rawValue] ?? "on"
        try connection.execute(
            """
            SET synchronous_commit = \(commit); SET client_min_messages = warning;
            SET idle_in_transaction_session_timeout = \(max(100, idleTransactionLimit))
            """
        )
        return connection
    }

    /// A connection set up for this store's durability, retried while the server cannot be reached.
    /// - Parameter idleTransactionLimit: how long the server lets a transaction of this connection sit idle before
    ///   it ends the connection (milliseconds): an instance paused in the middle of a transaction must not keep the
    ///   locks that the instances taking its sessions over wait for. Its lease is the measure.
    /// A server in recovery (a standby) is refused here as one that is down: its writes would fail until it is
    /// promoted.
    static func connect(
        _ url: String,
        durability: Durability,
        idleTransactionLimit: Int64,
        availability: StoreAvailability,
        caller: StoreAvailability.Caller = .journal,
        waiting: ((String) -> Void)? = nil
    ) throws(StoreError) -> PostgresConnection {
        var told = false
        while true {
            do throws(StoreError) {
                let connection = try openOnce(url, durability: durability, idleTransactionLimit: idleTransactionLimit)
                // The lease's connection answers: what the lease saw is over. (The journal's outage ends with a write
                // that goes through, not a connection: a full disk lets one connect.)
                if caller == .lease {
                    availability.answered(by: .lease)
                }
                return connection
            } catch {
                guard error.code == .unavailable, !Self.isPermanent(error) else { throw error }
                availability.failed(error.message, by: caller)
                guard availability.shouldRetry else { throw availability.gaveUp(error) }
                if !told {
                    told = true
                    waiting?("\(error.message); retrying for \(availability.retryWindow.components.seconds) s")
                }
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
    }

    /// Whether a failed connection will fail the same way however often it is tried: the server answered and
    /// refused (an unknown role or database, a wrong password), or the address itself is wrong. A server that is
    /// starting, stopping or full is waited for.
    static func isPermanent(_ error: StoreError) -> Bool {
        let message = error.message
        // 57P03 (cannot_connect_now) and its kin: a server starting, stopping, recovering, or a standby being
        // promoted; 53300: too many connections.
        let transient = [
            "the database system is starting up", "the database system is shutting down", "too many clients",
            "the database system is in recovery mode", "terminating connection", "not yet accepting connections",
            "is not accepting connections", "the database system is not accepting connections", "hot standby",
            "remaining connection slots", "in recovery",
        ]
        if transient.contains(where: message.contains) { return false }
        return message.contains("FATAL:") || message.contains("invalid ") || message.contains("missing \"=\"")
    }

    // MARK: Registering, and what this instance owns

    /// Registers this instance (a new fencing token: a previous run under the same name can no longer write) and
    /// returns what its name owns: the shared metadata, the snapshots and the journal entries after them.
    public func load() throws(StoreError) -> StoredState {
        try retrying { () throws(StoreError) -> StoredState in
            try transaction { () throws(StoreError) -> StoredState in
                // The sessions this name owns were written with the flows of its previous run.
                let previous = try connection.run(
                    "SELECT flows, flows_file FROM flowbus_instances WHERE name = $1",
                    [.text(instance.name)]
                )
                let registered = try connection.run(
                    """
                    INSERT INTO flowbus_instances(name, token, control, events, lease_until, started_at, flows, flows_file)
                    VALUES ($1, nextval('flowbus_tokens'), $2, $3,
                            clock_timestamp() + $4::int8 * interval '1 millisecond', clock_timestamp(), $5, $6)
                    ON CONFLICT (name) DO UPDATE SET token = EXCLUDED.token, control = EXCLUDED.control,
                        events = EXCLUDED.events, lease_until = EXCLUDED.lease_until,
                        started_at = EXCLUDED.started_at, commits = 0, flows = EXCLUDED.flows,
                        flows_file = EXCLUDED.flows_file
                    RETURNING token, taken
                    """,
                    [
                        .text(instance.name), .text(instance.control.joined(separator: " ")),
                        .text(instance.events.joined(separator: " ")), .integer(instance.leaseMilliseconds),
                        .text(instance.flows), .text(instance.flowsFile),
                    ]
                )
                token = registered.integer(0, 0)
                takenSeen = registered.integer(0, 1)
                commits = 0
                try connection.run(
                    "UPDATE flowbus_sessions SET token = $2 WHERE owner = $1",
                    [.text(instance.name), .integer(token)]
                )
                var state = try owned(only: nil)
                if previous.count == 1, !previous.text(0, 0).isEmpty {
                    state.metadata["flows"] = previous.text(0, 0)
                    state.metadata["flowsFile"] = previous.text(0, 1)
                }
                counts.snapshots = state.snapshots.count
                counts.journalEntries = state.entries.count
                return state
            }
        }
    }

    /// What this registration owns: every session, or `only` those (taken from `writer`: then the metadata's flows
    /// are the ones that instance wrote them with).
    func owned(only sessions: [String]?, writtenBy writer: String? = nil) throws(StoreError) -> StoredState {
        var state = StoredState()
        let metadata = try connection.run("SELECT key, value FROM flowbus_meta")
        for row in 0..<metadata.count {
            state.metadata[metadata.text(row, 0)] = metadata.text(row, 1)
        }
        // The flows these sessions were written with: the other instance's, or this one's (the fleet's row of
        // metadata says only what the last instance to start runs).
        if let writer {
            let flows = try connection.run(
                "SELECT flows, flows_file FROM flowbus_instances WHERE name = $1",
                [.text(writer)]
            )
            if flows.count == 1, !flows.text(0, 0).isEmpty {
                state.metadata["flows"] = flows.text(0, 0)
                state.metadata["flowsFile"] = flows.text(0, 1)
            }
        } else if !instance.flows.isEmpty {
            state.metadata["flows"] = instance.flows
            state.metadata["flowsFile"] = instance.flowsFile
        }
        var parameters: [PostgresParameter] = [.text(instance.name), .integer(token)]
        var filter = ""
        if let sessions {
            parameters.append(.textArray(sessions))
            filter = " AND s.session = ANY($3::text[])"
        }
        let snapshots = try connection.run(
            """
            SELECT s.session, s.snapshot FROM flowbus_sessions s
            WHERE s.owner = $1 AND s.token = $2 AND s.snapshot IS NOT NULL\(filter) ORDER BY s.session
            """,
            parameters
        )
        for row in 0..<snapshots.count {
            state.snapshots.append(SnapshotRecord(session: snapshots.text(row, 0), bytes: snapshots.bytes(row, 1)))
        }
        let entries = try connection.run(
            """
            SELECT j.session, j.entry FROM flowbus_journal j JOIN flowbus_sessions s ON s.session = j.session
            WHERE s.owner = $1 AND s.token = $2\(filter) ORDER BY j.position
            """,
            parameters
        )
        for row in 0..<entries.count {
            state.entries.append(JournalRecord(session: entries.text(row, 0), bytes: entries.bytes(row, 1)))
        }
        return state
    }

    // MARK: Writing

    @discardableResult
    public func commit(_ groups: [StoreGroup]) throws(StoreError) -> [String] {
        guard groups.contains(where: { !$0.isEmpty }) else { return [] }
        let started = ContinuousClock.now
        let number = commits + 1
        let lost = try retrying(
            { () throws(StoreError) -> [String] in try write(groups, number: number) },
            // After a lost connection: the transaction may have committed before the connection went.
            alreadyDone: { () throws(StoreError) -> [String]? in
                let done = try self.connection.run(
                    "SELECT commits FROM flowbus_instances WHERE name = $1 AND token = $2",
                    [.text(self.instance.name), .integer(self.token)]
                )
                return done.count == 1 && done.integer(0, 0) >= number ? [] : nil
            }
        )
        commits = number
        let elapsed = ContinuousClock.now - started
        counts.noteTransaction(of: groups, microseconds: elapsed.microseconds, total: &totalWriteMicroseconds)
        return lost
    }

    /// Writes the groups' rows for the sessions this registration still owns, in one transaction and two round
    /// trips: the first locks the instance's row (checking its token) and reads which of the sessions are still its
    /// own; the second writes their rows and commits.
    private func write(_ groups: [StoreGroup], number: Int64) throws(StoreError) -> [String] {
        var touched = Set<String>()
        for group in groups {
            touched.formUnion(group.removed)
            touched.formUnion(group.entries.lazy.map(\.session))
            touched.formUnion(group.snapshots.lazy.map(\.session))
        }
        do throws(StoreError) {
            let checked = try connection.pipeline([
                ("BEGIN", []),
                (
                    "UPDATE flowbus_instances SET commits = $2 WHERE name = $1 RETURNING token",
                    [.text(instance.name), .integer(number)]
                ),
                (
                    "SELECT session FROM flowbus_sessions WHERE session = ANY($1::text[]) AND token = $2",
                    [.textArray(touched), .integer(token)]
                ),
            ])
            guard checked[1].count == 1, checked[1].integer(0, 0) == token else {
                throw StoreError(
                    .fenced,
                    "instance \(instance.name) was registered again by another flowd (its fencing token changed): this one must not write"
                )
            }
            let owned = Set((0..<checked[2].count).map { checked[2].text($0, 0) })
            var writes = PipelinedWrites()
            var ended = Set<String>()
            for group in groups {
                writes.add(group, owned: owned, ended: &ended)
            }
            if !ended.isEmpty {
                // Ended and not started again: the session's row goes, and with it this instance's claim.
                writes.append(
                    """
                    DELETE FROM flowbus_sessions s WHERE s.session = ANY($1::text[]) AND s.token = $2
                    AND s.snapshot IS NULL AND NOT EXISTS (SELECT 1 FROM flowbus_journal j WHERE j.session = s.session)
                    """,
                    [.textArray(ended), .integer(token)]
                )
            }
            let countsSnapshots = groups.contains { !$0.snapshots.isEmpty || !$0.removed.isEmpty }
            if countsSnapshots {
                writes.append(
                    "SELECT count(*)::int8 FROM flowbus_sessions WHERE token = $1 AND snapshot IS NOT NULL",
                    [.integer(token)],
                    .snapshots
                )
            }
            writes.append("COMMIT", [])
            let results = try connection.pipeline(writes.statements)
            counts.snapshotsWritten += writes.snapshotsWritten
            for (result, effect) in zip(results, writes.effects) {
                switch effect {
                case .none: break
                case .entriesAdded: counts.journalEntries += result.changed
                case .entriesRemoved: counts.journalEntries -= result.changed
                case .snapshots: counts.snapshots = Int(result.integer(0, 0))
                }
            }
            return touched.subtracting(owned).sorted()
        } catch {
            if connection.isConnected {
                try? connection.execute("ROLLBACK")
            }
            throw error
        }
    }

    /// The statements that write groups, with what each one's result counts for.
    private struct PipelinedWrites {
        enum Effect {
            case none, entriesAdded, entriesRemoved, snapshots
        }

        var statements: [(sql: String, parameters: [PostgresParameter])] = []
        var effects: [Effect] = []
        /// Snapshots the statements write.
        var snapshotsWritten = 0

        mutating func append(_ sql: String, _ parameters: [PostgresParameter], _ effect: Effect = .none) {
            statements.append((sql, parameters))
            effects.append(effect)
        }

        /// One group's rows, for the sessions in `owned`.
        mutating func add(_ group: StoreGroup, owned: Set<String>, ended: inout Set<String>) {
            let removed = group.removed.filter(owned.contains)
            if !removed.isEmpty {
                append(
                    "DELETE FROM flowbus_journal WHERE session = ANY($1::text[])",
                    [.textArray(removed)],
                    .entriesRemoved
                )
                append(
                    "UPDATE flowbus_sessions SET snapshot = NULL WHERE session = ANY($1::text[])",
                    [.textArray(removed)]
                )
                ended.formUnion(removed)
            }
            let entries = group.entries.filter { owned.contains($0.session) }
            for start in stride(from: 0, to: entries.count, by: PostgresStore.rowsPerInsert) {
                let chunk = entries[start..<min(start + PostgresStore.rowsPerInsert, entries.count)]
                let values = (0..<chunk.count).map { "($\(2 * $0 + 1), $\(2 * $0 + 2)::bytea)" }.joined(separator: ", ")
                append(
                    "INSERT INTO flowbus_journal(session, entry) VALUES \(values)",
                    chunk.flatMap { [PostgresParameter.text($0.session), .bytes($0.bytes)] },
                    .entriesAdded
                )
            }
            let snapshots = group.snapshots.filter { owned.contains($0.session) }
            for snapshot in snapshots {
                append(
                    "UPDATE flowbus_sessions SET snapshot = $2::bytea WHERE session = $1",
                    [.text(snapshot.session), .bytes(snapshot.bytes)]
                )
            }
            if !snapshots.isEmpty {
                append(
                    "DELETE FROM flowbus_journal WHERE session = ANY($1::text[])",
                    [.textArray(snapshots.map(\.session))],
                    .entriesRemoved
                )
                snapshotsWritten += snapshots.count
            }
            ended.subtract(entries.map(\.session))
            ended.subtract(snapshots.map(\.session))
            for (key, value) in group.metadata.sorted(by: { $0.key < $1.key }) {
                // The clock only moves forward: every instance writes it, and the fleet's is the latest.
                append(
                    """
                    INSERT INTO flowbus_meta(key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value =
                        CASE WHEN $1 = 'clock' AND flowbus_meta.value::int8 > EXCLUDED.value::int8
                             THEN flowbus_meta.value ELSE EXCLUDED.value END
                    """,
                    [.text(key), .text(value)]
                )
            }
        }
    }

    /// Rows in one INSERT: two parameters each, far below PostgreSQL's 65 535.
    static let rowsPerInsert = 500

    // MARK: Transactions and retries

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
        try connection.execute("BEGIN")
        do {
            let result = try body()
            try connection.execute("COMMIT")
            return result
        } catch {
            if connection.isConnected {
                try? connection.execute("ROLLBACK")
            }
            throw error
        }
    }

    /// Runs `attempt`, again after a lost connection (reconnecting while ``availability`` allows) or a conflict the server
    /// asks to retry (a deadlock, a serialization failure). After a lost connection, `alreadyDone` says whether
    /// the cut attempt committed nonetheless, and with what.
    func retrying<Result>(
        _ attempt: () throws(StoreError) -> Result,
        alreadyDone: (() throws(StoreError) -> Result?)? = nil
    ) throws(StoreError) -> Result {
        // Whether an attempt was cut off by a lost connection: then whether it committed is checked first, on the
        // new connection (a check cut off in turn is retried as the attempt is).
        var cut = false
        var triedAfresh = false
        while true {
            do throws(StoreError) {
                if cut, let alreadyDone, let result = try alreadyDone() {
                    availability.answered()
                    return result
                }
                let result = try attempt()
                availability.answered()
                return result
            } catch {
                if error.sqlState == "40001" || error.sqlState == "40P01" {
                    continue
                }
                guard error.code == .unavailable else { throw error }
                cut = true
                // A connection that worked learns only at its next statement that the server went away meanwhile (a
                // restart between two writes): a new one is tried at once, before any outage is told.
                if !triedAfresh, !connection.isConnected,
                    let fresh = try? Self.openOnce(
                        url,
                        durability: durability,
                        idleTransactionLimit: instance.leaseMilliseconds
                    )
                {
                    triedAfresh = true
                    connection = fresh
                    continue
                }
                availability.failed(error.message)
                guard availability.shouldRetry else { throw availability.gaveUp(error) }
                Thread.sleep(forTimeInterval: 0.1)
                connection = try Self.connect(
                    url,
                    durability: durability,
                    idleTransactionLimit: instance.leaseMilliseconds,
                    availability: availability
                )
            }
        }
    }

    // MARK: Statistics

    public var statistics: StoreStatistics {
        let now = ContinuousClock.now
        if sizeMeasured.map({ now - $0 >= .seconds(5) }) ?? true {
            sizeMeasured = now
            let size = try? connection.run(
                "SELECT (pg_total_relation_size('flowbus_journal') + pg_total_relation_size('flowbus_sessions'))::int8"
            )
            counts.bytes = size.map { $0.integer(0, 0) } ?? counts.bytes
        }
        return counts
    }
}

extension Duration {
    /// The duration in whole microseconds.
    var microseconds: Int {
        Int(components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000)
    }
}

extension StoreStatistics {
    /// Counts a transaction of `groups` that took `microseconds`.
    mutating func noteTransaction(of groups: [StoreGroup], microseconds: Int, total: inout Int) {
        self.groups += groups.count
        transactions += 1
        lastWriteMicroseconds = microseconds
        maxWriteMicroseconds = max(maxWriteMicroseconds, microseconds)
        total += microseconds
        meanWriteMicroseconds = total / transactions
    }
}
