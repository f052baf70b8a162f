import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An ipc endpoint's socket file.
struct IPCEndpoint {
    /// The socket file's path.
    let path: String

    /// The endpoint's socket file, or `nil` for an endpoint of another transport.
    init?(_ endpoint: String) {
        guard endpoint.hasPrefix("ipc://") else { return nil }
        path = String(endpoint.dropFirst("ipc://".count))
    }

    /// Whether a process accepts connections on the socket file now: binding there would take the endpoint away
    /// from it (libzmq replaces the file), so flowd refuses to start instead. A file nobody listens on is stale.
    var isServed: Bool {
        guard FileManager.default.fileExists(atPath: path) else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let connected = withUnixSocketAddress(path) { address, length in connect(descriptor, address, length) }
        return connected == 0
    }

    /// Whether something other than a socket file is at the path (binding would replace it).
    var isSomethingElse: Bool {
        var status = stat()
        guard lstat(path, &status) == 0 else { return false }
        return (status.st_mode & S_IFMT) != S_IFSOCK
    }

    /// Makes the socket file's directory.
    func prepareDirectory() throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// Sets who may connect: the socket file's mode (connecting needs write permission) and group.
    /// - Throws: ``DaemonError`` when the file cannot be changed (the group is not one of flowd's user's).
    func setAccess(mode: UInt32?, group: gid_t?) throws {
        if let group, chown(path, uid_t.max, group) != 0 {
            throw DaemonError("cannot give \(path) to group \(group): \(String(cString: strerror(errno)))")
        }
        if let mode, chmod(path, mode_t(mode)) != 0 {
            throw DaemonError("cannot set the mode of \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// A group's id from its name or number; `nil` when there is no such group.
    static func groupID(_ name: String) -> gid_t? {
        if let number = gid_t(name) { return number }
        guard let entry = getgrnam(name) else { return nil }
        return entry.pointee.gr_gid
    }

    /// Removes the socket file.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
