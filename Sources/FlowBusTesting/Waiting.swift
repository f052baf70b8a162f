import Foundation

/// Waits until `condition` holds, checking every few milliseconds, for at most `timeout`.
/// - Returns: whether it held in time.
@discardableResult
public func waitUntil(within timeout: Duration = .seconds(10), _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() {
            return true
        }
        Thread.sleep(forTimeInterval: 0.002)
    }
    return try condition()
}

/// Waits, without holding a thread, until an async condition holds.
/// - Throws: ``TestFailure`` naming `what` when it does not hold within `timeout`.
public func eventually(
    _ what: String = "the condition",
    within timeout: Duration = .seconds(10),
    _ condition: () async throws -> Bool
) async throws {
    _ = try await eventuallyValue(what, within: timeout) { try await condition() ? true : nil }
}

/// Waits, without holding a thread, until an async value exists, and returns it.
/// - Throws: ``TestFailure`` naming `what` when it does not come within `timeout`.
public func eventuallyValue<Value>(
    _ what: String = "the value",
    within timeout: Duration = .seconds(10),
    _ value: () async throws -> Value?
) async throws -> Value {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if let found = try await value() {
            return found
        }
        try await Task.sleep(for: .milliseconds(5))
    }
    throw TestFailure("\(what) never came within \(timeout)")
}
