import Foundation
import Glibc

/// A built product run by a test as a real process, with a pipe to its standard input and its standard output
/// and error collected; killed (SIGKILL) when released.
public final class ChildProcess: @unchecked Sendable {
    public let process = Process()
    private let input = Pipe()
    /// Where the output is read from.
    private let outputHandle: FileHandle
    private let lock = NSLock()
    private var collected = ""
    /// Whether the output pipe reached its end (the process and its children closed it).
    private var ended = false

    /// Starts the built product `name` with `arguments`; `environment` adds to the test's own environment.
    public init(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: try builtProduct(name))
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        outputHandle = output.fileHandleForReading
        process.standardOutput = output
        process.standardError = output
        process.standardInput = input
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                self.lock.withLock { self.ended = true }
                return
            }
            self.lock.withLock { self.collected += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
    }

    deinit {
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Everything the process wrote so far (standard output and error together).
    public var output: String {
        lock.withLock { collected }
    }

    /// Writes a line to the process's standard input.
    public func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// How much has been written so far: pass it to ``waitForOutput(containing:after:within:)`` to look only at
    /// what comes next.
    public var mark: Int {
        output.utf8.count
    }

    /// Waits until the output after `mark` contains `text`; returns the output from `mark` on.
    @discardableResult
    public func waitForOutput(
        containing text: String,
        after mark: Int = 0,
        within timeout: Duration = .seconds(10)
    ) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let tail = String(decoding: output.utf8.dropFirst(mark), as: UTF8.self)
            if tail.contains(text) {
                return tail
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        throw TestFailure("the process never wrote \"\(text)\"; it wrote:\n\(output)")
    }

    /// Sends `signal` to the process and waits for it to end and for all it wrote to be collected.
    public func terminate(with signal: Int32 = SIGKILL) {
        Glibc.kill(process.processIdentifier, signal)
        // A test that reads the output afterwards checks it; one that does not, need not wait for it.
        _ = try? waitForExit()
    }

    /// Waits for the process to end, and for everything it wrote to be collected (the output is read on another
    /// thread: the process may end before its last write is read). Returns the whole output.
    @discardableResult
    public func waitForExit(within timeout: Duration = .seconds(10)) throws -> String {
        process.waitUntilExit()
        let deadline = ContinuousClock.now + timeout
        // The reading handler is normally told of the output's end; when that notice has not come a second after the
        // process ended (Foundation on Linux was seen to miss it once in a CI run), the rest is read here.
        let notice = ContinuousClock.now + .seconds(1)
        while !lock.withLock({ ended }) {
            if ContinuousClock.now >= notice {
                readRest(until: deadline)
                guard lock.withLock({ ended }) else {
                    throw TestFailure("the process ended, but its output was not all read within \(timeout)")
                }
                break
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return output
    }

    /// Reads what is left of the output, the reading handler stopped, until its end or `deadline`.
    private func readRest(until deadline: ContinuousClock.Instant) {
        outputHandle.readabilityHandler = nil
        let descriptor = outputHandle.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while ContinuousClock.now < deadline, !lock.withLock({ ended }) {
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&waiting, 1, 100) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                lock.withLock { collected += String(decoding: buffer[..<count], as: UTF8.self) }
            } else if count == 0 {
                lock.withLock { ended = true }
            } else if errno != EINTR && errno != EAGAIN {
                return
            }
        }
    }
}
