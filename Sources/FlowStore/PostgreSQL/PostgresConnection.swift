internal import CPostgreSQL

/// One libpq connection, blocking, used by one thread at a time.
///
/// Parameters go as text, bytes as binary; results come back in binary (`int8`, `bool`, `text`, `bytea` only:
/// every query casts what it selects to one of them).
final class PostgresConnection {
    private var handle: OpaquePointer?
    /// The address, without its password: for messages and `flowctl`.
    let location: String

    /// Connects to `url` (a `postgres://` URL or libpq's `key=value` form).
    /// - Throws: ``StoreError`` `.unavailable` with libpq's reason.
    init(url: String) throws(StoreError) {
        location = Self.redacted(url)
        handle = PQconnectdb(Self.withTimeouts(url))
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let reason = handle.map { Self.trimmed(String(cString: PQerrorMessage($0))) } ?? "out of memory"
            PQfinish(handle)
            self.handle = nil
            throw StoreError(.unavailable, "cannot connect to PostgreSQL at \(location): \(reason)")
        }
        // Notices (a table that already exists, ...) are not errors: libpq would print them on standard error.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether the connection is still up (after an error: whether it was the server or the connection that failed).
    var isConnected: Bool {
        handle.map { PQstatus($0) == CONNECTION_OK } ?? false
    }

    /// Runs one statement with parameters (`$1`, `$2`...), and returns its rows.
    @discardableResult
    func run(_ sql: String, _ parameters: [PostgresParameter] = []) throws(StoreError) -> PostgresRows {
        let (texts, lengths, formats) = Self.encode(parameters)
        let result = withPointers(to: texts) { pointers in
            PQexecParams(handle, sql, Int32(parameters.count), nil, pointers, lengths, formats, 1)
        }
        guard let result else {
            throw StoreError(.unavailable, "PostgreSQL at \(location): \(errorMessage)")
        }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            defer { PQclear(result) }
            throw failure(result, doing: sql)
        }
        return PostgresRows(result)
    }

    /// Runs statements in one round trip (libpq's pipeline mode), in order, and returns each one's rows. When one
    /// fails, the later ones are not run, and its error is thrown (inside a transaction, roll it back).
    func pipeline(_ statements: [(sql: String, parameters: [PostgresParameter])]) throws(StoreError) -> [PostgresRows] {
        guard PQenterPipelineMode(handle) == 1 else {
            throw StoreError(.unavailable, "PostgreSQL at \(location): cannot pipeline: \(errorMessage)")
        }
        defer { _ = PQexitPipelineMode(handle) }
        for statement in statements {
            let (texts, lengths, formats) = Self.encode(statement.parameters)
            let sent = withPointers(to: texts) { pointers in
                PQsendQueryParams(
                    handle,
                    statement.sql,
                    Int32(statement.parameters.count),
                    nil,
                    pointers,
                    lengths,
                    formats,
                    1
                )
            }
            guard sent == 1 else {
                throw StoreError(.unavailable, "PostgreSQL at \(location): \(errorMessage)")
            }
        }
        guard PQpipelineSync(handle) == 1 else {
            throw StoreError(.unavailable, "PostgreSQL at \(location): \(errorMessage)")
        }
        var results: [PostgresRows] = []
        var failure: StoreError?
        for statement in statements {
            // Each statement's result, then a null that ends it.
            var rows: PostgresRows?
            while let result = PQgetResult(handle) {
                let status = PQresultStatus(result)
                if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK {
                    rows = PostgresRows(result)
                } else {
                    if status != PGRES_PIPELINE_ABORTED {
                        failure = failure ?? self.failure(result, doing: statement.sql)
                    }
                    PQclear(result)
                }
            }
            if let rows {
                results.append(rows)
            }
        }
        // The sync's own result, then the end of the pipeline.
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        if let failure {
            throw failure
        }
        guard results.count == statements.count else {
            throw StoreError(.unavailable, "PostgreSQL at \(location): the pipeline ended early: \(errorMessage)")
        }
        return results
    }

    /// Parameters as libpq takes them: their bytes, lengths and formats (text, or binary for bytes).
    private static func encode(_ parameters: [PostgresParameter]) -> ([[CChar]?], [Int32], [Int32]) {
        var texts: [[CChar]?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        texts.reserveCapacity(parameters.count)
        for parameter in parameters {
            switch parameter {
            case .text(let text):
                texts.append(Array(text.utf8).map { CChar(bitPattern: $0) })
                lengths.append(0)
                formats.append(0)
            case .bytes(let bytes):
                texts.append(bytes.map { CChar(bitPattern: $0) })
                lengths.append(Int32(bytes.count))
                formats.append(1)
            case .null:
                texts.append(nil)
                lengths.append(0)
                formats.append(0)
            }
        }
        return (texts, lengths, formats)
    }

    /// Runs SQL without parameters: several statements allowed (schema changes, BEGIN, COMMIT).
    func execute(_ sql: String) throws(StoreError) {
        guard let result = PQexec(handle, sql) else {
            throw StoreError(.unavailable, "PostgreSQL at \(location): \(errorMessage)")
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw failure(result, doing: sql)
        }
    }

    /// A store error for a failed statement: a lost connection is told apart from what the server refused.
    private func failure(_ result: OpaquePointer, doing sql: String) -> StoreError {
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
        let message = Self.trimmed(String(cString: PQresultErrorMessage(result)))
        let summary = sql.split(separator: "\n").first.map(String.init) ?? sql
        let reason = message.isEmpty ? errorMessage : message
        // No SQLSTATE: libpq's own (the connection went). Class 08, 57P0x and any FATAL (an idle transaction's
        // timeout, say): the connection or the server went.
        let severity = PQresultErrorField(result, Int32(UInt8(ascii: "V"))).map { String(cString: $0) } ?? ""
        // 25006: a read-only transaction, on a standby that is not promoted yet (or a server made read-only); class
        // 53: the server's disk, memory or connections are full. Waited for as a server that is down.
        let lost =
            !isConnected || state.isEmpty || state.hasPrefix("08") || state.hasPrefix("57P0") || state == "25006"
            || state.hasPrefix("53") || severity == "FATAL" || severity == "PANIC"
        return StoreError(
            lost ? .unavailable : .rejected,
            "PostgreSQL at \(location)\(state.isEmpty ? "" : " (\(state))"): \(reason) (in \(summary))",
            sqlState: state
        )
    }

    private var errorMessage: String {
        handle.map { Self.trimmed(String(cString: PQerrorMessage($0))) } ?? "not connected"
    }

    private static func trimmed(_ text: String) -> String {
        String(text.reversed().drop(while: \.isWhitespace).reversed())
            .replacingOccurrences(of: "\n\t", with: " ").replacingOccurrences(of: "\t", with: " ")
            .replacingOccurrences(of: "\n", with: "; ")
    }

    /// libpq's settings that keep a connection from hanging on a server that does not answer (a network that drops
    /// packets, a server paused): connecting gives up after 5 s, and a connection whose packets go unanswered for 10 s
    /// is dropped (TCP keepalives and `tcp_user_timeout`; over a Unix socket they do not apply). Each is added unless
    /// `url` sets it.
    static let timeouts = [
        ("connect_timeout", "5"), ("keepalives", "1"), ("keepalives_idle", "5"), ("keepalives_interval", "2"),
        ("keepalives_count", "3"), ("tcp_user_timeout", "10000"),
    ]

    /// `url` with ``timeouts`` added, in its own form (a URL's query, or `key=value` words).
    static func withTimeouts(_ url: String) -> String {
        let missing = timeouts.filter { !url.contains("\($0.0)=") }
        guard !missing.isEmpty else { return url }
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            let pairs = missing.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
            return url + (url.contains("?") ? "&" : "?") + pairs
        }
        return url + " " + missing.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }

    /// `url` without its password, in either of libpq's forms (in a URL: after the user, or as a parameter).
    static func redacted(_ url: String) -> String {
        let hidden = url.replacing(/password=[^& ]*/, with: "password=***")
        guard let scheme = hidden.range(of: "://") else { return hidden }
        let rest = hidden[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else {
            return hidden
        }
        return String(hidden[..<colon]) + ":***" + hidden[at...]
    }
}

/// A parameter of a statement.
enum PostgresParameter {
    /// Text, for any type PostgreSQL reads from text (`text`, `int8`, `text[]`...).
    case text(String)
    /// Bytes, sent in binary: for `bytea`.
    case bytes([UInt8])
    case null

    /// An integer, as text.
    static func integer(_ value: Int64) -> Self { .text(String(value)) }

    /// A `text[]` array literal.
    static func textArray(_ values: some Sequence<String>) -> Self {
        let elements = values.map { value in
            "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                + "\""
        }
        return .text("{" + elements.joined(separator: ",") + "}")
    }
}

/// The rows of a statement, read in binary.
final class PostgresRows {
    private let result: OpaquePointer

    init(_ result: OpaquePointer) {
        self.result = result
    }

    deinit {
        PQclear(result)
    }

    /// How many rows.
    var count: Int { Int(PQntuples(result)) }

    /// Rows changed by an INSERT, UPDATE or DELETE.
    var changed: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    func isNull(_ row: Int, _ column: Int) -> Bool {
        PQgetisnull(result, Int32(row), Int32(column)) == 1
    }

    /// A column's bytes (a `bytea`, or a `text`'s UTF-8).
    func bytes(_ row: Int, _ column: Int) -> [UInt8] {
        let length = Int(PQgetlength(result, Int32(row), Int32(column)))
        guard length > 0, let value = PQgetvalue(result, Int32(row), Int32(column)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: value, count: length))
    }

    func text(_ row: Int, _ column: Int) -> String {
        String(decoding: bytes(row, column), as: UTF8.self)
    }

    /// An `int8` (binary: eight bytes, most significant first).
    func integer(_ row: Int, _ column: Int) -> Int64 {
        bytes(row, column).reduce(Int64(0)) { ($0 << 8) | Int64($1) }
    }

    /// A `bool` (binary: one byte).
    func boolean(_ row: Int, _ column: Int) -> Bool {
        bytes(row, column).first == 1
    }
}

/// Calls `body` with C pointers to the parameters' bytes (`nil` for a null), which live until it returns: all of
/// them in one buffer, each followed by a zero (text parameters are C strings).
private func withPointers<Result>(
    to values: [[CChar]?],
    _ body: ([UnsafePointer<CChar>?]) -> Result
) -> Result {
    var buffer: [CChar] = [0]
    var offsets: [Int?] = []
    offsets.reserveCapacity(values.count)
    for value in values {
        guard let value else {
            offsets.append(nil)
            continue
        }
        offsets.append(buffer.count)
        buffer.append(contentsOf: value)
        buffer.append(0)
    }
    return buffer.withUnsafeBufferPointer { storage in
        body(offsets.map { offset in offset.map { UnsafePointer(storage.baseAddress! + $0) } })
    }
}
