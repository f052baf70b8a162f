import Foundation
import Glibc

/// A real PostgreSQL server of a test's own: Debian's binaries, a data directory in a temporary directory, a Unix
/// socket there (no port to collide), run as an unprivileged user (`postgres` when the tests run as root, as in CI).
/// Stopped and removed with the value.
///
/// The cluster is made once per test process (initdb takes a second or two) and copied for each server.
public final class PostgresServer: @unchecked Sendable {
    /// The temporary directory: the data directory and the socket are in it.
    public let directory: String
    private let lock = NSLock()
    private var process: Process?
    private var log = ""

    /// Why no server can be started here, or `nil` when one can: shown by the tests that are skipped.
    public static let unavailableReason: String? = {
        guard binaries != nil else {
            return "PostgreSQL's server is not installed (scripts/bootstrap --tests installs Debian's postgresql)"
        }
        guard getuid() != 0 || getpwnam("postgres") != nil else {
            return "the tests run as root and there is no postgres user to run the server as"
        }
        return nil
    }()

    /// Whether a server can be started here.
    public static var isAvailable: Bool { unavailableReason == nil }

    /// The directory of Debian's newest PostgreSQL binaries.
    private static let binaries: String? = {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap { Int($0) }.sorted().reversed()
            .map { "\(root)/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: $0 + "/postgres") }
    }()

    /// The user the server runs as: the tests' own, or `postgres` when they run as root.
    private static let user: String? = getuid() == 0 ? "postgres" : nil

    /// A cluster made once, copied for every server.
    private static let template: Result<String, TestFailure> = {
        guard let binaries else { return .failure(TestFailure(unavailableReason ?? "no PostgreSQL")) }
        let directory = uniqueDirectory("pg-template")
        do {
            try makeDirectory(directory)
            let made = try run(
                binaries + "/initdb",
                ["-D", directory + "/data", "-A", "trust", "-U", "flowbus", "-E", "UTF8", "--locale=C", "--no-sync"],
                asUser: user
            )
            guard made.status == 0 else {
                return .failure(TestFailure("initdb failed: \(made.output)\(made.errors)"))
            }
            atexit { PostgresServer.removeTemplate() }
            return .success(directory)
        } catch {
            return .failure(TestFailure("initdb could not run: \(error)"))
        }
    }()

    private static func removeTemplate() {
        if case .success(let directory) = template {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// A directory the server's user owns.
    private static func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: path,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        if let user, let entry = getpwnam(user) {
            chown(path, entry.pointee.pw_uid, entry.pointee.pw_gid)
        }
    }

    /// Starts a server with a cluster of its own.
    public init() throws {
        let template = try Self.template.get()
        directory = uniqueDirectory("pg")
        try Self.makeDirectory(directory)
        let copied = try run("/bin/cp", ["-a", template + "/data", directory + "/data"], asUser: Self.user)
        guard copied.status == 0 else { throw TestFailure("cannot copy the cluster: \(copied.errors)") }
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The URL of a database on it (`postgres`, the one every cluster has, by default).
    public func url(database: String = "postgres") -> String {
        "postgresql:///\(database)?host=\(directory)&user=flowbus"
    }

    /// Creates a database and returns its URL: one per test keeps tests apart on one server.
    public func createDatabase(_ name: String = "t\(UUID().uuidString.prefix(8).lowercased())") throws -> String {
        let created = try psql("CREATE DATABASE \(name)")
        guard created.status == 0 else { throw TestFailure("CREATE DATABASE failed: \(created.errors)") }
        return url(database: name)
    }

    /// Runs SQL with psql against a database of the server.
    @discardableResult
    public func psql(
        _ sql: String,
        database: String = "postgres"
    ) throws -> (status: Int32, output: String, errors: String) {
        try run(
            Self.binaries! + "/psql",
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", directory, "-U", "flowbus", "-d", database, "-c",
                sql,
            ]
        )
    }

    /// Starts the server (again, after ``stop(immediately:)``), and waits until it takes connections.
    public func start() throws {
        try launch()
        let ready = waitUntil(within: .seconds(30)) {
            guard lock.withLock({ self.process?.isRunning }) == true else { return true }
            return (try? psql("SELECT 1").status) == 0
        }
        guard ready, lock.withLock({ self.process?.isRunning }) == true else {
            throw TestFailure("PostgreSQL did not start: \(lock.withLock { log })")
        }
    }

    /// Starts the server again (after ``stop(immediately:)``) as a standby of a primary it does not have: it stays
    /// in recovery, refusing writes, until ``promote()``. With `acceptingReads` (hot standby) it takes read-only
    /// connections meanwhile; without, it refuses every connection ("the database system is not yet accepting
    /// connections", SQLSTATE 57P03). Returns once the server runs, without waiting for it to take connections.
    public func startAsStandby(acceptingReads: Bool) throws {
        let signal = directory + "/data/standby.signal"
        guard FileManager.default.createFile(atPath: signal, contents: Data()) else {
            throw TestFailure("cannot write \(signal)")
        }
        try launch(["-c", "hot_standby=\(acceptingReads ? "on" : "off")"])
        let running = waitUntil(within: .seconds(30)) {
            output.contains("entering standby mode") || lock.withLock({ self.process?.isRunning }) != true
        }
        guard running, lock.withLock({ self.process?.isRunning }) == true else {
            throw TestFailure("PostgreSQL did not start as a standby: \(lock.withLock { log })")
        }
    }

    /// Promotes a standby (``startAsStandby(acceptingReads:)``) to a primary, and waits until it takes writes.
    public func promote() throws {
        let promoted = try run(Self.binaries! + "/pg_ctl", ["promote", "-D", directory + "/data"], asUser: Self.user)
        guard promoted.status == 0 else {
            throw TestFailure("pg_ctl promote failed: \(promoted.output)\(promoted.errors)")
        }
        let writable = waitUntil(within: .seconds(30)) {
            (try? psql("SELECT pg_is_in_recovery()").output.trimmingCharacters(in: .whitespacesAndNewlines)) == "f"
        }
        guard writable else { throw TestFailure("the standby was not promoted: \(lock.withLock { log })") }
    }

    /// Runs the server on its data directory, with `settings` added.
    private func launch(_ settings: [String] = []) throws {
        let process = Process()
        let postgres = Self.binaries! + "/postgres"
        let arguments =
            [
                "-D", directory + "/data", "-k", directory, "-c", "listen_addresses=", "-c", "fsync=off",
                "-c", "max_connections=200", "-c", "shared_buffers=32MB",
            ] + settings
        if let user = Self.user {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", postgres] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: postgres)
            process.arguments = arguments
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                return
            }
            self?.lock.withLock { self?.log += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        lock.withLock { self.process = process }
    }

    /// Stops the server: at once (SIGQUIT: no checkpoint, as after a crash) or fast (SIGINT: connections are cut,
    /// then a clean shutdown); waits for it to end.
    public func stop(immediately: Bool = false) {
        guard let process = lock.withLock({ self.process }), process.isRunning else { return }
        kill(process.processIdentifier, immediately ? SIGQUIT : SIGINT)
        process.waitUntilExit()
        lock.withLock { self.process = nil }
    }

    /// What the server logged.
    public var output: String { lock.withLock { log } }
}
