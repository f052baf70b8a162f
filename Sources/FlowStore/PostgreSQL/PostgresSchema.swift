/// FlowBus's tables in a PostgreSQL database, created and migrated by flowd, with the format's version in
/// `flowbus_schema`. Every instance checks it when it connects, under an advisory lock, so that instances started
/// together create the tables once.
enum PostgresSchema {
    /// The format this FlowBus writes and reads.
    static let version: Int64 = 1

    /// The advisory lock held while the schema is checked or created ("FBUS").
    static let lockKey: Int64 = 0x4642_5553

    /// The tables of version 1.
    static let tables = """
        CREATE TABLE flowbus_schema(version int8 NOT NULL);
        CREATE TABLE flowbus_meta(key text PRIMARY KEY, value text NOT NULL);
        CREATE SEQUENCE flowbus_tokens;
        CREATE TABLE flowbus_instances(
            name text PRIMARY KEY,
            token int8 NOT NULL,
            control text NOT NULL,
            events text NOT NULL,
            lease_until timestamptz NOT NULL,
            started_at timestamptz NOT NULL,
            commits int8 NOT NULL DEFAULT 0,
            taken int8 NOT NULL DEFAULT 0,
            flows text NOT NULL DEFAULT '',
            flows_file text NOT NULL DEFAULT ''
        );
        CREATE TABLE flowbus_sessions(
            session text PRIMARY KEY,
            owner text NOT NULL,
            token int8 NOT NULL,
            snapshot bytea
        );
        CREATE INDEX flowbus_sessions_by_owner ON flowbus_sessions(owner);
        CREATE TABLE flowbus_journal(position bigserial PRIMARY KEY, session text NOT NULL, entry bytea NOT NULL);
        CREATE INDEX flowbus_journal_by_session ON flowbus_journal(session);
        INSERT INTO flowbus_schema(version) VALUES (1);
        """

    /// Creates the tables in an empty database, or checks those there.
    /// - Throws: ``StoreError`` `.newerFormat` for tables of a newer FlowBus, `.corrupted` for tables that are not
    ///   whole.
    static func prepare(_ connection: PostgresConnection) throws(StoreError) {
        try connection.execute("BEGIN")
        do {
            try connection.run("SELECT pg_advisory_xact_lock($1::int8)", [.integer(lockKey)])
            let found = try connection.run(
                """
                SELECT count(*)::int8 FROM pg_tables
                WHERE schemaname = current_schema() AND tablename IN
                    ('flowbus_schema', 'flowbus_meta', 'flowbus_instances', 'flowbus_sessions', 'flowbus_journal')
                """
            ).integer(0, 0)
            if found == 0 {
                try connection.execute(tables)
            } else {
                try check(connection, tablesFound: found)
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    private static func check(_ connection: PostgresConnection, tablesFound: Int64) throws(StoreError) {
        let hasVersion = try connection.run(
            "SELECT count(*)::int8 FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'flowbus_schema'"
        ).integer(0, 0)
        let versions = try hasVersion == 1 ? connection.run("SELECT version FROM flowbus_schema") : nil
        guard let versions, versions.count == 1 else {
            throw StoreError(
                .corrupted,
                "the database at \(connection.location) has some of FlowBus's tables but no schema version; restore it from a backup, or give flowd an empty database"
            )
        }
        let found = versions.integer(0, 0)
        guard found <= version else {
            throw StoreError(
                .newerFormat,
                "the database at \(connection.location) was written by a newer FlowBus (schema \(found); this flowd reads up to \(version)); run that version on every instance"
            )
        }
        guard found == version, tablesFound == 5 else {
            throw StoreError(
                .corrupted,
                "the database at \(connection.location) is damaged: FlowBus's tables are missing or its schema version (\(found)) is one no FlowBus wrote; restore it from a backup"
            )
        }
    }
}
