internal import CZeroMQ

/// A ZeroMQ context: the owner of libzmq's I/O threads and of every socket made from it.
///
/// A context is thread-safe and can be shared. Every ``Socket`` keeps its context alive, so the context is
/// terminated only after its last socket is closed; since every socket is created with an explicit linger
/// (zero unless you ask otherwise), termination never waits longer than the longest linger you chose,
/// even with unsent messages queued.
///
/// Call ``shutdown()`` to make every blocking call on this context's sockets, on any thread, return at once
/// with ``ZeroMQError/Code/contextTerminated``: that is how a thread blocked in a poll is told to stop.
public final class Context: @unchecked Sendable {
    // libzmq documents zmq_ctx_* functions as thread-safe; the handle is never mutated after init.
    let handle: UnsafeMutableRawPointer

    /// Creates a context.
    /// - Parameters:
    ///   - ioThreads: libzmq's background I/O threads; one handles well over a gigabyte per second.
    ///   - maxSockets: the most sockets the context may hold (libzmq's default is 1023).
    public init(ioThreads: Int = 1, maxSockets: Int? = nil) throws(ZeroMQError) {
        guard let handle = zmq_ctx_new() else {
            throw ZeroMQError(.system, operation: "zmq_ctx_new", message: describe(zmq_errno()))
        }
        self.handle = handle
        // Sockets get an explicit linger anyway; this also covers sockets libzmq creates internally.
        try libzmqChecked("zmq_ctx_set") { zmq_ctx_set(handle, ZMQ_BLOCKY, 0) }
        try libzmqChecked("zmq_ctx_set") { zmq_ctx_set(handle, ZMQ_IO_THREADS, Int32(clamping: ioThreads)) }
        if let maxSockets {
            try libzmqChecked("zmq_ctx_set") { zmq_ctx_set(handle, ZMQ_MAX_SOCKETS, Int32(clamping: maxSockets)) }
        }
    }

    /// Makes every blocking operation on this context's sockets fail with ``ZeroMQError/Code/contextTerminated``,
    /// now and from then on. Sockets must still be closed (released) by their owners. Safe from any thread.
    public func shutdown() {
        _ = zmq_ctx_shutdown(handle)
    }

    deinit {
        // No socket can be open here: each one holds a reference to its context.
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }
}

/// Facts about the libzmq this program runs with.
public enum ZeroMQLibrary {
    /// libzmq's version as (major, minor, patch).
    public static var version: (major: Int, minor: Int, patch: Int) {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return (Int(major), Int(minor), Int(patch))
    }

    /// Whether libzmq was built with a capability, such as `"curve"` or `"ipc"`.
    public static func has(_ capability: String) -> Bool {
        zmq_has(capability) != 0
    }
}
