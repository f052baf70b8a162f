import Glibc

/// Wakes a thread from its ``Poller`` when another thread has something for it: a non-blocking self-pipe whose
/// read end the poller watches next to the sockets (``Poller/register(fileDescriptor:for:)``). Any thread may
/// ``signal()``; several signals before a ``drain()`` wake the poll once. Making it takes two descriptors, once:
/// signalling takes none (a process out of descriptors can still be woken).
public final class WakePipe: Sendable {
    /// The end to poll for readability.
    public let fileDescriptor: Int32
    private let writeEnd: Int32

    /// Makes the pipe, both ends non-blocking and closed on exec.
    /// - Throws: ``ZeroMQError/Code/system`` when the process has no descriptor to give.
    public init() throws(ZeroMQError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw ZeroMQError(.system, operation: "pipe", message: String(cString: strerror(errno)))
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        fileDescriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(fileDescriptor)
        close(writeEnd)
    }

    /// Makes the read end readable until the next ``drain()`` (a full pipe is readable already).
    public func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe, so that the next poll waits for the next ``signal()``.
    public func drain() {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { buffer in
            while read(fileDescriptor, buffer.baseAddress, buffer.count) > 0 {}
        }
    }
}
