import Synchronization

/// A value shared between tasks and threads of a test, behind a lock.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) {
        mutex = Mutex(value)
    }

    /// Reads or changes the value under the lock.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { try body(&$0) }
    }

    /// The value now.
    public var value: Value {
        mutex.withLock { $0 }
    }
}
