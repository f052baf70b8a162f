internal import CSQLite

/// One SQLite connection, used by one thread at a time. Statements are prepared once and kept.
final class SQLiteDatabase {
    private(set) var handle: OpaquePointer?
    let path: String

    /// Opens (creating when missing) the database file at `path`.
    init(path: String) throws(StoreError) {
        self.path = path
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        self.handle = handle
        guard status == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            self.handle = nil
            throw StoreError(.unavailable, "cannot open \(path): \(message)")
        }
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Closes the connection now, on the calling thread (otherwise it closes with the object, wherever that goes
    /// last); nothing may use it after.
    func close() {
        sqlite3_close_v2(handle)
        handle = nil
    }

    /// Runs SQL that returns no rows (several statements allowed).
    func execute(_ sql: String) throws(StoreError) {
        var error: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &error)
        guard status == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "error \(status)"
            sqlite3_free(error)
            throw failure(status, message, doing: sql)
        }
    }

    /// Prepares a statement to run many times.
    func prepare(_ sql: String) throws(StoreError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw failure(status, String(cString: sqlite3_errmsg(handle)), doing: sql)
        }
        return SQLiteStatement(statement, database: self)
    }

    /// The one integer a query returns (a PRAGMA, a count).
    func integer(_ sql: String) throws(StoreError) -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { return 0 }
        return statement.integer(at: 0)
    }

    /// A store error for a failed call: damaged files are told apart from the rest.
    func failure(_ status: Int32, _ message: String, doing what: String) -> StoreError {
        let primary = status & 0xff
        let summary = what.split(separator: "\n").first.map(String.init) ?? what
        if primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT {
            return StoreError(
                .corrupted,
                "\(path) is damaged or not a FlowBus state file (\(message)); move it away to start empty, or restore it from a backup"
            )
        }
        if primary == SQLITE_BUSY || primary == SQLITE_LOCKED {
            return StoreError(.locked, "\(path) is in use by another process (\(message))")
        }
        // What may pass (a full disk, a file that cannot be written or opened now, memory) is waited for; the rest
        // (a constraint, a statement the file does not take) will fail the same way again.
        let passing = [SQLITE_FULL, SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_NOMEM, SQLITE_PERM]
        return StoreError(
            passing.contains(primary) ? .unavailable : .rejected,
            "\(path): \(message) (in \(summary))"
        )
    }

    /// Rows changed by the last statement.
    var changes: Int {
        Int(sqlite3_changes(handle))
    }

    var errorMessage: String {
        String(cString: sqlite3_errmsg(handle))
    }
}

/// A prepared statement: bind, step, read columns, reset.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private unowned let database: SQLiteDatabase

    init(_ statement: OpaquePointer, database: SQLiteDatabase) {
        self.statement = statement
        self.database = database
    }

    deinit {
        sqlite3_finalize(statement)
    }

    /// Binds text to a parameter (1-based).
    func bind(_ text: String, at index: Int32) {
        sqlite3_bind_text(statement, index, text, -1, sqliteTransient)
    }

    /// Binds bytes to a parameter (1-based).
    func bind(_ bytes: [UInt8], at index: Int32) {
        bytes.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob(statement, index, buffer.baseAddress, Int32(buffer.count), sqliteTransient)
        }
    }

    /// Steps once: `true` when a row is there to read, `false` when done.
    func step() throws(StoreError) -> Bool {
        let status = sqlite3_step(statement)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let message = database.errorMessage
            sqlite3_reset(statement)
            throw database.failure(status, message, doing: String(cString: sqlite3_sql(statement)))
        }
    }

    /// Runs a statement that returns no rows, then makes it ready to run again.
    func run() throws(StoreError) {
        defer { reset() }
        _ = try step()
    }

    /// Makes the statement ready to run again, its parameters cleared.
    func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    func integer(at column: Int32) -> Int64 {
        sqlite3_column_int64(statement, column)
    }

    func text(at column: Int32) -> String {
        guard let text = sqlite3_column_text(statement, column) else { return "" }
        return String(cString: text)
    }

    func bytes(at column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

/// SQLITE_TRANSIENT: SQLite copies what is bound.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
