import Foundation

/// A real flowd process started by a test, with its standard error collected; stopped (SIGKILL) when released.
public final class DaemonProcess: @unchecked Sendable {
    public let process = Process()
    private let lock = NSLock()
    private var errorText = ""
    /// Whether standard error reached its end (read to the last byte).
    private var errorsEnded = false

    /// Its state directory: the one `arguments` name, else a fresh one of its own (never the user's).
    public let stateDirectory: String?
    /// Whether the state directory was made for this process (then it goes with it).
    private let ownsStateDirectory: Bool
    /// Whether a launcher runs flowd (then flowd is the process's child).
    private let launched: Bool

    /// Starts the built flowd with `arguments`; without `--state-dir` or `--ephemeral` among them, it gets a fresh
    /// state directory of its own. With `fileSizeLimit` (bytes), no file flowd writes may grow beyond it (the
    /// shell's `ulimit -f`, with SIGXFSZ ignored): a write past it fails with EFBIG, as on a full disk.
    /// With `openFileLimit`, flowd starts with that soft and hard limit of open files (`ulimit -n`). `environment`
    /// adds to the test's own environment. With `launcher`, that command runs flowd (`strace -f -o FILE`, say):
    /// the process is then the launcher's.
    public init(
        _ arguments: [String],
        fileSizeLimit: Int? = nil,
        openFileLimit: Int? = nil,
        environment: [String: String] = [:],
        launcher: [String] = []
    ) throws {
        let flowd = try builtProduct("flowd")
        process.executableURL = URL(fileURLWithPath: flowd)
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let index = arguments.firstIndex(of: "--state-dir"), index + 1 < arguments.count {
            stateDirectory = arguments[index + 1]
            ownsStateDirectory = false
            process.arguments = arguments
        } else if arguments.contains("--ephemeral") || arguments.contains("--store")
            || arguments.contains(where: { $0.hasPrefix("--state-dir=") })
        {
            stateDirectory = nil
            ownsStateDirectory = false
            process.arguments = arguments
        } else {
            let directory = uniqueDirectory("fs")
            stateDirectory = directory
            ownsStateDirectory = true
            process.arguments = arguments + ["--state-dir", directory]
        }
        if fileSizeLimit != nil || openFileLimit != nil {
            // ulimit -f counts blocks of 512 bytes; exec keeps the limits and the ignored signal.
            let fileSize = fileSizeLimit.map { "trap '' XFSZ; ulimit -f \($0 / 512) && " } ?? ""
            let openFiles = openFileLimit.map { "ulimit -Sn \($0) && ulimit -Hn \($0) && " } ?? ""
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments =
                ["-c", fileSize + openFiles + "exec \"$0\" \"$@\"", flowd] + (process.arguments ?? [])
        }
        launched = !launcher.isEmpty
        if let command = launcher.first {
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = launcher.dropFirst() + [flowd] + (process.arguments ?? [])
        }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        errors.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                self.lock.withLock { self.errorsEnded = true }
                return
            }
            self.lock.withLock { self.errorText += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
    }

    /// Starts flowd on the demo flows with ipc endpoints in a fresh directory (no tcp), plus `arguments`.
    public static func onIPC(flows: String = demoFlows, _ arguments: [String] = []) throws -> DaemonProcess {
        let directory = uniqueDirectory("fd")
        return try DaemonProcess(
            ["--flows", flows, "--control", "ipc://\(directory)/control", "--events", "ipc://\(directory)/events"]
                + arguments
        )
    }

    /// flowd's process id when a launcher runs it (the launcher's child), `nil` before it started.
    public var launchedDaemonID: pid_t? {
        let pid = process.processIdentifier
        let children = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)
        return children?.split(separator: " ").first.flatMap { pid_t($0) }
    }

    deinit {
        // A launched flowd outlives its launcher and holds the pipe Process waits on: it goes first.
        if launched, process.isRunning, let daemon = launchedDaemonID {
            kill(daemon, SIGKILL)
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        if ownsStateDirectory {
            removeState()
        }
    }

    /// Its resident memory, in bytes (from /proc; 0 once it has ended).
    public var residentBytes: Int {
        let status =
            (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    /// Removes the state directory (when the test is done with it).
    public func removeState() {
        if let stateDirectory {
            try? FileManager.default.removeItem(atPath: stateDirectory)
        }
    }

    /// Everything flowd wrote to standard error so far.
    public var standardError: String {
        lock.withLock { errorText }
    }

    /// Waits until standard error has a line containing `text`, and returns that line.
    public func line(containing text: String, within timeout: Duration = .seconds(10)) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = standardError.split(separator: "\n").first(where: { $0.contains(text) }) {
                return String(line)
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.005)
        }
        throw TestFailure("flowd never wrote \"\(text)\"; it wrote:\n\(standardError)")
    }

    /// The endpoints flowd says it is ready on: (control, events).
    public func readyEndpoints() throws -> (control: [String], events: [String]) {
        let ready = try line(containing: "ready: control ")
        let words = ready.split(separator: " ").map(String.init)
        guard let control = words.firstIndex(of: "control"), let events = words.firstIndex(of: "events"),
            let flows = words.firstIndex(of: "flows")
        else {
            throw TestFailure("cannot read the endpoints from \"\(ready)\"")
        }
        return (Array(words[(control + 1)..<events]), Array(words[(events + 1)..<flows]))
    }

    /// Sends a signal and waits (bounded) for the process to exit; returns its status.
    public func signal(_ number: Int32, within timeout: Duration = .seconds(10)) -> Int32? {
        kill(process.processIdentifier, number)
        return exitStatus(within: timeout)
    }

    /// Waits (bounded) for the process to exit by itself; returns its status, `nil` if it is still running.
    public func exitStatus(within timeout: Duration = .seconds(10)) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        guard !process.isRunning else { return nil }
        // What it wrote last is read on another thread: wait for the end of the pipe before saying it ended.
        while !lock.withLock({ errorsEnded }) && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.002)
        }
        return process.terminationStatus
    }
}
