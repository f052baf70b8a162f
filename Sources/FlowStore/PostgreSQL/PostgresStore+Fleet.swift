import Foundation

extension PostgresStore {
    public func locate(_ session: String, claiming: Bool = true) throws(StoreError) -> SessionPlacement {
        try retrying { () throws(StoreError) -> SessionPlacement in
            try transaction { () throws(StoreError) -> SessionPlacement in
                // A few rounds at most: each one that does not decide lost a race another instance won.
                for _ in 0..<4 {
                    if let placement = try placeOnce(session, claiming: claiming) {
                        return placement
                    }
                }
                throw StoreError(.rejected, "session \(session) changed owner while this instance looked it up")
            }
        }
    }

    /// One look at a session's row: claims it when nobody owns it or its owner's lease expired; `nil` when another
    /// instance changed the row meanwhile.
    private func placeOnce(_ session: String, claiming: Bool) throws(StoreError) -> SessionPlacement? {
        let found = try connection.run(
            """
            SELECT s.token, i.token IS NOT NULL AND i.token = s.token, coalesce(i.lease_until < clock_timestamp(), true),
                   s.owner
            FROM flowbus_sessions s LEFT JOIN flowbus_instances i ON i.name = s.owner WHERE s.session = $1
            """,
            [.text(session)]
        )
        guard found.count == 1 else {
            guard claiming else { return .nowhere }
            let claimed = try connection.run(
                "INSERT INTO flowbus_sessions(session, owner, token) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                [.text(session), .text(instance.name), .integer(token)]
            )
            guard claimed.changed == 1 else { return nil }
            return .here(try owned(only: [session]))
        }
        let (held, ownerCurrent, expired, owner) = (
            found.integer(0, 0), found.boolean(0, 1), found.boolean(0, 2), found.text(0, 3)
        )
        if held == token {
            return .here(try owned(only: [session]))
        }
        if ownerCurrent && !expired {
            return try members(named: owner).first.map(SessionPlacement.elsewhere)
        }
        // The owner's lease expired, or the instance that held the session is gone: this one takes it over, under
        // a lock on the owner's row, which its writer takes too: the owner cannot be half-way through a write.
        // The owner learns of it from its row: a paused instance, back, looks at what it still owns.
        try connection.run("UPDATE flowbus_instances SET taken = taken + 1 WHERE name = $1", [.text(owner)])
        let taken = try connection.run(
            """
            UPDATE flowbus_sessions s SET owner = $2, token = $3 WHERE s.session = $1 AND s.token = $4
            AND NOT EXISTS (SELECT 1 FROM flowbus_instances i
                            WHERE i.name = s.owner AND i.token = s.token AND i.lease_until >= clock_timestamp())
            """,
            [.text(session), .text(instance.name), .integer(token), .integer(held)]
        )
        guard taken.changed == 1 else { return nil }
        return .here(try owned(only: [session], writtenBy: owner))
    }

    public func adoptOrphans(limit: Int) throws(StoreError) -> StoredState {
        try retrying { () throws(StoreError) -> StoredState in
            try transaction { () throws(StoreError) -> StoredState in
                // Instances gone for good (their lease expired long ago, their sessions all taken) leave the list.
                try connection.run(
                    """
                    DELETE FROM flowbus_instances i
                    WHERE i.lease_until < clock_timestamp() - $1::int8 * interval '1 millisecond'
                    AND NOT EXISTS (SELECT 1 FROM flowbus_sessions s WHERE s.owner = i.name)
                    """,
                    [.integer(Self.forgottenAfterMilliseconds)]
                )
                // Instances another one is taking over already are skipped: their rows are locked.
                let expired = try connection.run(
                    """
                    SELECT i.name FROM flowbus_instances i
                    WHERE i.lease_until < clock_timestamp() AND i.name <> $1
                    AND EXISTS (SELECT 1 FROM flowbus_sessions s WHERE s.owner = i.name)
                    ORDER BY i.name FOR UPDATE SKIP LOCKED
                    """,
                    [.text(instance.name)]
                )
                // One dead instance at a time: its sessions are replayed with the flows it wrote them with.
                let victims = (0..<min(expired.count, 1)).map { expired.text($0, 0) }
                guard !victims.isEmpty, limit > 0 else { return StoredState() }
                let counts = try connection.run(
                    """
                    SELECT (SELECT count(*) FROM flowbus_sessions WHERE owner = ANY($1::text[]))::int8,
                           (SELECT count(*) FROM flowbus_instances WHERE lease_until >= clock_timestamp())::int8
                    """,
                    [.textArray(victims)]
                )
                let (orphans, live) = (Int(counts.integer(0, 0)), max(1, Int(counts.integer(0, 1))))
                let share = min(limit, (orphans + live - 1) / live)
                guard share > 0 else { return StoredState() }
                let claimed = try connection.run(
                    """
                    UPDATE flowbus_sessions SET owner = $2, token = $3 WHERE session IN (
                        SELECT session FROM flowbus_sessions WHERE owner = ANY($1::text[])
                        ORDER BY session LIMIT $4::int8 FOR UPDATE SKIP LOCKED)
                    RETURNING session
                    """,
                    [.textArray(victims), .text(instance.name), .integer(token), .integer(Int64(share))]
                )
                let sessions = (0..<claimed.count).map { claimed.text($0, 0) }
                try connection.run(
                    "UPDATE flowbus_instances SET taken = taken + 1 WHERE name = ANY($1::text[])",
                    [.textArray(victims)]
                )
                return sessions.isEmpty ? StoredState() : try owned(only: sessions, writtenBy: victims[0])
            }
        }
    }

    /// How long after its lease expired an instance that owns no session leaves the list (milliseconds): ten
    /// minutes, so that a restart is seen as such, and a retired one (a StatefulSet scaled down) is forgotten.
    public static let forgottenAfterMilliseconds: Int64 = 600_000

    /// Waits until no other flowd runs as this instance: a lease of the name that is still alive must expire (a
    /// flowd that was killed, restarting) without being renewed. One that is renewed belongs to a flowd that runs.
    /// - Throws: ``StoreError`` `.locked` naming the instance when its lease is renewed meanwhile.
    public func awaitName() throws(StoreError) {
        var seen: Int64?
        while true {
            let row = try retrying { () throws(StoreError) -> PostgresRows in
                try connection.run(
                    """
                    SELECT (extract(epoch FROM lease_until) * 1000)::int8,
                           (extract(epoch FROM lease_until - clock_timestamp()) * 1000)::int8
                    FROM flowbus_instances WHERE name = $1
                    """,
                    [.text(instance.name)]
                )
            }
            guard row.count == 1, row.integer(0, 1) > 0 else { return }
            let (until, remaining) = (row.integer(0, 0), row.integer(0, 1))
            if let seen, until > seen {
                throw StoreError(
                    .locked,
                    "another flowd runs as instance \(instance.name) of the fleet (its lease is renewed); stop it, or give this one another --instance"
                )
            }
            seen = until
            // Looked at often enough to see a renewal (every third of a lease) before the lease would lapse.
            Thread.sleep(forTimeInterval: Double(min(remaining + 50, 500)) / 1000)
        }
    }

    public func ownedSessionsIfTaken() throws(StoreError) -> Set<String>? {
        try retrying { () throws(StoreError) -> Set<String>? in
            // Every takeover counts itself in the row of the instance it takes from.
            let taken = try connection.run(
                "SELECT taken FROM flowbus_instances WHERE name = $1",
                [.text(instance.name)]
            )
            let count = taken.count == 1 ? taken.integer(0, 0) : -1
            guard count != takenSeen else { return nil }
            let rows = try connection.run(
                "SELECT session FROM flowbus_sessions WHERE owner = $1 AND token = $2",
                [.text(instance.name), .integer(token)]
            )
            takenSeen = count
            return Set((0..<rows.count).map { rows.text($0, 0) })
        }
    }

    public func members() throws(StoreError) -> [FleetMember] {
        try retrying { () throws(StoreError) -> [FleetMember] in try members(named: nil) }
    }

    /// The instances, or the one named.
    private func members(named name: String?) throws(StoreError) -> [FleetMember] {
        let rows = try connection.run(
            """
            SELECT i.name, i.control, i.events, i.lease_until >= clock_timestamp(),
                   (extract(epoch FROM i.lease_until - clock_timestamp()) * 1000)::int8,
                   (SELECT count(*) FROM flowbus_sessions s WHERE s.owner = i.name AND s.token = i.token)::int8,
                   (extract(epoch FROM i.started_at) * 1000)::int8
            FROM flowbus_instances i WHERE $1::text IS NULL OR i.name = $1 ORDER BY i.name
            """,
            [name.map(PostgresParameter.text) ?? .null]
        )
        return (0..<rows.count).map { row in
            FleetMember(
                name: rows.text(row, 0),
                control: rows.text(row, 1).split(separator: " ").map(String.init),
                events: rows.text(row, 2).split(separator: " ").map(String.init),
                alive: rows.boolean(row, 3),
                leaseRemainingMilliseconds: rows.integer(row, 4),
                sessions: Int(rows.integer(row, 5)),
                startedAt: rows.integer(row, 6)
            )
        }
    }

    /// A lease keeper for this registration, on a connection of its own: renewing never waits behind a write.
    public func makeLease() throws(StoreError) -> PostgresLease {
        PostgresLease(
            connection: try Self.connect(
                url,
                durability: .os,
                idleTransactionLimit: instance.leaseMilliseconds,
                availability: availability,
                caller: .lease
            ),
            availability: availability,
            url: url,
            name: instance.name,
            token: token,
            leaseMilliseconds: instance.leaseMilliseconds
        )
    }
}
