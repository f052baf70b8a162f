internal import CZeroMQ

extension Socket {
    /// Sets a socket option, for example `try socket.setOption(.sendHighWaterMark, 10_000)`.
    public func setOption<Value>(_ option: SocketOption<Value>, _ value: Value) throws(ZeroMQError) {
        let bytes = try option.codec.encode(value)
        let result = bytes.withUnsafeBytes { buffer in
            libzmqResult("zmq_setsockopt") { zmq_setsockopt(handle, option.name, buffer.baseAddress, buffer.count) }
        }
        if case .failure(let error) = result {
            throw ZeroMQError(error.code, operation: "zmq_setsockopt(\(option))", message: error.message)
        }
        if option.name == ZMQ_CURVE_SERVER, let enabled = value as? Bool {
            capturesUserID = enabled
        }
    }

    /// Reads a socket option back.
    /// - Throws: ``ZeroMQError/Code/notSupported`` for options libzmq does not let you read.
    public func option<Value>(_ option: SocketOption<Value>) throws(ZeroMQError) -> Value {
        guard option.isReadable else {
            throw ZeroMQError(.notSupported, operation: "zmq_getsockopt", message: "\(option) can be set but not read")
        }
        var buffer = [UInt8](repeating: 0, count: option.codec.capacity)
        var size = buffer.count
        let result = buffer.withUnsafeMutableBytes { raw in
            libzmqResult("zmq_getsockopt") { zmq_getsockopt(handle, option.name, raw.baseAddress, &size) }
        }
        if case .failure(let error) = result {
            throw ZeroMQError(error.code, operation: "zmq_getsockopt(\(option))", message: error.message)
        }
        return option.codec.decode(Array(buffer.prefix(size)))
    }

    /// Subscribes a SUB socket to messages whose first frame starts with `prefix` (`""`: everything).
    public func subscribe(_ prefix: String) throws(ZeroMQError) {
        try setOption(.subscribe, Array(prefix.utf8))
    }

    /// Removes a subscription made with ``subscribe(_:)``.
    public func unsubscribe(_ prefix: String) throws(ZeroMQError) {
        try setOption(.unsubscribe, Array(prefix.utf8))
    }
}
