import Foundation

/// valgrind, when installed, and a copy of flowbench it can run.
struct Valgrind {
    let path: String
    /// flowbench without its debug information (valgrind 3.19 cannot read what Swift writes; the symbols stay).
    let flowbench: String

    /// `nil` when valgrind is not installed.
    init?() throws {
        guard
            let path = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { return nil }
        self.path = path
        flowbench = NSTemporaryDirectory() + "flowbench-nodebug-\(ProcessInfo.processInfo.processIdentifier)"
        let strip = Process()
        strip.executableURL = URL(fileURLWithPath: "/usr/bin/objcopy")
        strip.arguments = ["--strip-debug", CommandLine.arguments[0], flowbench]
        try strip.run()
        strip.waitUntilExit()
        guard strip.terminationStatus == 0 else { throw BenchFailure("objcopy could not copy flowbench") }
    }

    func cleanUp() {
        try? FileManager.default.removeItem(atPath: flowbench)
    }

    /// Runs the copy of flowbench with `arguments` under valgrind with `options`; returns what valgrind printed
    /// on its standard error.
    func run(_ options: [String], _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = options + [flowbench] + arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchFailure("valgrind \(arguments.joined(separator: " ")) failed: \(text.suffix(2000))")
        }
        return text
    }
}
