import FlowStore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// flowd's state directory, held by one flowd at a time: `flowd.lock` in it stays locked (`flock`) while flowd
/// runs, and says which flowd holds it. The lock goes with the process, however it ends.
public final class StateDirectory {
    /// The directory.
    public let path: String
    private let lockDescriptor: Int32

    /// The database file in it.
    public var databasePath: String { path + "/flowd.db" }

    /// The default state directory: `$XDG_STATE_HOME/flowbus`, else `~/.local/state/flowbus`.
    public static func defaultPath(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + "/flowbus"
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/state/flowbus"
    }

    /// A state directory as written in a flag or a file, made absolute: `~/` is the home directory, and a relative
    /// path is taken from `base` (the working directory for a flag, the configuration file's directory for a file).
    /// `none` stays `none`.
    public static func resolve(_ path: String, relativeTo base: String, environment: [String: String]) -> String {
        guard path != "none" else { return path }
        var resolved = path
        if resolved == "~" || resolved.hasPrefix("~/") {
            resolved = (environment["HOME"] ?? NSHomeDirectory()) + resolved.dropFirst()
        }
        if !resolved.hasPrefix("/") {
            resolved =
                URL(fileURLWithPath: resolved, relativeTo: URL(fileURLWithPath: base, isDirectory: true))
                .standardizedFileURL.path
        }
        return resolved
    }

    /// Takes the directory (creating it, private to this user, when missing) for this process.
    /// - Parameter path: the directory.
    /// - Parameter owner: who takes it, written into the lock file for whoever finds it taken.
    /// - Throws: `StoreError` `.locked` naming the flowd that holds it, or `.unavailable`.
    public init(path: String, owner: String) throws(StoreError) {
        self.path = path
        do {
            try FileManager.default.createDirectory(
                atPath: path,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw StoreError(.unavailable, "cannot create the state directory \(path): \(error.localizedDescription)")
        }
        let lockPath = path + "/flowd.lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.unavailable, "cannot open \(lockPath): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: lockPath, encoding: .utf8))?
                .split(separator: "\n").joined(separator: ", ")
            close(descriptor)
            throw StoreError(
                .locked,
                "another flowd uses the state directory \(path) (\(holder.map { $0.isEmpty ? "starting" : $0 } ?? "unknown")); stop it, or give this one another --state-dir"
            )
        }
        lockDescriptor = descriptor
        let text = Array(owner.utf8)
        _ = ftruncate(descriptor, 0)
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    deinit {
        // Emptied first: a lock file left behind then names nobody.
        _ = ftruncate(lockDescriptor, 0)
        close(lockDescriptor)
    }
}
