import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Why a client may not reach an ipc endpoint, in words it can act on: a missing socket file, or one this user
/// may not write to (connecting to a Unix socket needs write permission). `nil` for other transports, and when
/// the file is there and writable.
public enum IPCAccess {
    /// How a problem of permission begins.
    public static let deniedPrefix = "permission denied"

    /// Whether `problem` (from ``problem(with:)``) is one of permission: the socket exists but this user may not
    /// connect.
    public static func isPermissionDenied(_ problem: String) -> Bool {
        problem.hasPrefix(deniedPrefix)
    }

    /// The problem with `endpoint`, if it is an ipc endpoint that cannot be used.
    public static func problem(with endpoint: String) -> String? {
        guard endpoint.hasPrefix("ipc://") else { return nil }
        let path = String(endpoint.dropFirst("ipc://".count))
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == EACCES {
                return
                    "\(deniedPrefix): a directory on the way to \(path) cannot be searched by this user (uid \(getuid()))"
            }
            return "there is no socket file at \(path): is flowd running, on this endpoint?"
        }
        guard access(path, W_OK) != 0 else { return nil }
        let mode = String(status.st_mode & 0o777, radix: 8)
        return
            "\(deniedPrefix): \(path) is not writable for this user (uid \(getuid()); the file's mode 0\(mode), owner uid \(status.st_uid), group gid \(status.st_gid)): flowd's ipcMode and ipcGroup settings say who may connect (the package's: the group flowbus)"
    }
}
