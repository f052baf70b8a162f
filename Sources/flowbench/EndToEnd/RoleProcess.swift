import FlowBusTesting
import Foundation

/// Something in a benchmark did not go as planned.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// A process of a benchmark: flowd, flowctl, or flowbench itself in a role, spoken to by lines.
final class RoleProcess {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()

    /// Starts `executable` (a sibling of flowbench) with `arguments`. Its standard output is read (or dropped when
    /// `quiet`); with `readErrors`, its standard error is read instead.
    init(_ executable: String, _ arguments: [String], quiet: Bool = false, readErrors: Bool = false) throws {
        // A sibling of flowbench, or a program given by its absolute path (an interpreter).
        process.executableURL =
            executable.hasPrefix("/")
            ? URL(fileURLWithPath: executable) : URL(fileURLWithPath: Self.siblingPath(executable))
        process.arguments = arguments
        process.standardInput = input
        if readErrors {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = output
        } else {
            process.standardOutput = quiet ? FileHandle.nullDevice : output
        }
        try process.run()
    }

    deinit {
        stop()
    }

    /// The path of `executable` next to flowbench (scripts/bench puts the anchors there).
    static func siblingPath(_ executable: String) -> String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent(executable).path
    }

    /// Whether `executable` is there next to flowbench.
    static func siblingExists(_ executable: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: siblingPath(executable))
    }

    /// The next line the process prints (or `nil` at its end).
    func line() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { return nil }
            buffer.append(data)
        }
    }

    /// Waits for a line starting with `prefix`; returns it.
    @discardableResult
    func expect(_ prefix: String) throws -> String {
        while let line = line() {
            if line.hasPrefix(prefix) { return line }
        }
        throw BenchFailure("\(process.executableURL?.lastPathComponent ?? "a process") ended before '\(prefix)'")
    }

    /// Waits for a line containing `text`; returns it.
    @discardableResult
    func expect(containing text: String) throws -> String {
        while let line = line() {
            if line.contains(text) { return line }
        }
        throw BenchFailure("\(process.executableURL?.lastPathComponent ?? "a process") ended before '\(text)'")
    }

    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The process's resident set, from /proc.
    var residentBytes: Int {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/statm", encoding: .utf8)
        else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    /// The processor time the process has used so far (user and system, all threads), from /proc.
    var processorSeconds: Double {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let end = text.lastIndex(of: ")")
        else { return 0 }
        // After "pid (name) ": state is field 3 of the line; utime and stime are fields 14 and 15.
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The processor time used so far, once the process has stopped using any for 100 ms (it caught up with its
    /// input), or after 10 s.
    func processorSecondsOnceIdle() -> Double {
        let deadline = ContinuousClock.now + .seconds(10)
        var last = processorSeconds
        while ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            let now = processorSeconds
            if now == last { break }
            last = now
        }
        return last
    }

    /// SIGTERM, then SIGKILL after a moment: a process spawned from a thread that blocks signals inherits the
    /// mask, and only a program that reads its signals (flowd) stops on SIGTERM then.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(2)
        while process.isRunning && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }
}

/// Where a benchmark's processes meet: ipc in a directory of its own, or tcp on loopback ports that were free.
struct BenchEndpoints {
    let control: String
    let events: String

    static func make(_ transport: String, directory: String) -> BenchEndpoints {
        if transport == "tcp" {
            return BenchEndpoints(
                control: "tcp://127.0.0.1:\(freeLoopbackPort())",
                events: "tcp://127.0.0.1:\(freeLoopbackPort())"
            )
        }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return BenchEndpoints(control: "ipc://\(directory)/control", events: "ipc://\(directory)/events")
    }
}
