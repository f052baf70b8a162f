import Foundation

/// A test precondition that did not hold, with what was seen.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// The repository's root, found from this file's path.
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The demo flows file of the repository.
public let demoFlows = repositoryRoot.appendingPathComponent("deploy/flows/movies.yaml").path

/// The path of a product built next to the test bundle (`swift build --build-tests` builds executables too).
public func builtProduct(_ name: String) throws -> String {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        Bundle.main.bundleURL.deletingLastPathComponent(),
        Bundle.main.bundleURL,
    ].map { $0.appendingPathComponent(name).path }
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw TestFailure("\(name) is not built (looked in \(candidates))")
    }
    return found
}

/// Runs a built command to its end and returns its exit code and output: in `directory` when given, with
/// `environment` added to the test's, and as the user `user` (a uid, through setpriv; the tests run as root in CI)
/// when given.
public func run(
    _ executable: String,
    _ arguments: [String],
    in directory: String? = nil,
    environment: [String: String] = [:],
    asUser user: String? = nil
) throws -> (status: Int32, output: String, errors: String) {
    let process = Process()
    if let user {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", executable] + arguments
    } else {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
    }
    if let directory {
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
    }
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
        process.terminationStatus, String(decoding: outputData, as: UTF8.self),
        String(decoding: errorData, as: UTF8.self)
    )
}

/// A directory of its own for a test's ipc endpoints (short: ipc paths are limited to 107 bytes).
public func uniqueDirectory(_ prefix: String = "fb") -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))").path
}

/// A directory of its own for a test's files, made at once and removed with the value (a suite instance, a helper).
public final class ScratchDirectory: Sendable {
    /// The directory.
    public let path: String

    public init(_ prefix: String = "fb") {
        path = uniqueDirectory(prefix)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
