import Foundation
import Testing

/// A real flowd process started by a test, with its standard error collected; stopped (SIGKILL) when released.
final class DaemonProcess: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var errorText = ""

    /// Starts the built flowd with `arguments`.
    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: try builtProduct("flowd"))
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        errors.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.withLock { self.errorText += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Everything flowd wrote to standard error so far.
    var standardError: String {
        lock.withLock { errorText }
    }

    /// Waits until standard error has a line containing `text`, and returns that line.
    func line(containing text: String, within timeout: Duration = .seconds(10)) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = standardError.split(separator: "\n").first(where: { $0.contains(text) }) {
                return String(line)
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.005)
        }
        Issue.record("flowd never wrote \"\(text)\"; it wrote:\n\(standardError)")
        throw CancellationError()
    }

    /// The endpoints flowd says it is ready on: (control, events).
    func readyEndpoints() throws -> (control: [String], events: [String]) {
        let ready = try line(containing: "ready: control ")
        let words = ready.split(separator: " ").map(String.init)
        guard let control = words.firstIndex(of: "control"), let events = words.firstIndex(of: "events"),
            let flows = words.firstIndex(of: "flows")
        else {
            throw CancellationError()
        }
        return (Array(words[(control + 1)..<events]), Array(words[(events + 1)..<flows]))
    }

    /// Sends a signal and waits (bounded) for the process to exit; returns its status.
    func signal(_ number: Int32, within timeout: Duration = .seconds(10)) -> Int32? {
        kill(process.processIdentifier, number)
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        return process.isRunning ? nil : process.terminationStatus
    }
}

/// The path of a product built next to the test bundle.
func builtProduct(_ name: String) throws -> String {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        Bundle.main.bundleURL.deletingLastPathComponent(),
        Bundle.main.bundleURL,
    ].map { $0.appendingPathComponent(name).path }
    return try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0) }, "\(name) is not built")
}

/// The demo flows file of the repository.
let demoFlows = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("deploy/flows/movies.yaml").path
