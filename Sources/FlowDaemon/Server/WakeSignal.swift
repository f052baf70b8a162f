import Glibc

/// A self-pipe: another thread raises it, and the event loop's poll wakes up (its reading end is registered there
/// as a file descriptor). Raising it again before it is cleared wakes the loop once.
final class WakeSignal: Sendable {
    /// The descriptor to poll for readability.
    let fileDescriptor: Int32
    private let writingEnd: Int32

    /// Creates the pipe, both ends non-blocking and closed on exec.
    /// - Throws: ``DaemonError`` when the system has no descriptor to give.
    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw DaemonError("cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        fileDescriptor = ends[0]
        writingEnd = ends[1]
    }

    deinit {
        close(fileDescriptor)
        close(writingEnd)
    }

    /// Wakes the loop. Safe from any thread; when the pipe is full, the loop is already awake.
    func raise() {
        var byte: UInt8 = 1
        _ = write(writingEnd, &byte, 1)
    }

    /// Takes the signal down, so that the next poll waits for the next ``raise()``.
    func clear() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(fileDescriptor, &bytes, bytes.count) == bytes.count {}
    }
}
