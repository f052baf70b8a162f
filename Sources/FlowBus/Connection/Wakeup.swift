import Glibc

/// Wakes the connection's thread from its poll when a caller has queued a request: a non-blocking pipe whose read
/// end the poller watches next to the sockets. Any thread may signal it.
final class Wakeup: Sendable {
    /// The end the poller watches.
    let fileDescriptor: Int32
    private let writeEnd: Int32

    init() throws(FlowBusError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw FlowBusError(.invalidOptions, "cannot make a pipe: errno \(errno)")
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

    /// Makes the read end readable until the next ``drain()``. (A full pipe is readable already.)
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe.
    func drain() {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { buffer in
            while read(fileDescriptor, buffer.baseAddress, buffer.count) > 0 {}
        }
    }
}
