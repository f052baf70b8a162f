import Foundation

/// A store's claim on its database file: an advisory lock (`flock`) that a second store opening the same file, in
/// this process or another, is refused by.
///
/// SQLite's own locks are taken per transaction (the file has two connections: the writer's and the
/// checkpointer's), so they do not keep another store out between transactions. The descriptor is opened once and
/// closed only when the store goes: closing a descriptor of the file would drop SQLite's POSIX locks on it.
final class SQLiteFileLock {
    private let descriptor: Int32

    /// Claims the file at `path` (which exists), or throws ``StoreError`` `.locked` when another store holds it.
    init(path: String) throws(StoreError) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StoreError(.unavailable, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            close(descriptor)
            guard reason == EWOULDBLOCK else {
                throw StoreError(.unavailable, "cannot lock \(path): \(String(cString: strerror(reason)))")
            }
            throw StoreError(.locked, "\(path) is in use by another process (another store holds it)")
        }
    }

    deinit {
        close(descriptor)
    }
}
