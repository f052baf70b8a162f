import Dispatch
import Foundation
import Synchronization

/// The processes the demo starts — flowd, the presenter, the steppers — and their end: each is stopped when the
/// demo ends, fails or is interrupted, and the runtime directory (the ipc socket files) is removed.
final class DemoProcesses: Sendable {
    /// One process the demo started.
    final class Child: Sendable {
        let name: String
        let process: Process
        let input: Pipe?

        init(name: String, process: Process, input: Pipe?) {
            self.name = name
            self.process = process
            self.input = input
        }

        /// Writes a line to its standard input.
        func send(_ line: String) {
            input?.fileHandleForWriting.write(Data((line + "\n").utf8))
        }
    }

    /// Where the executables are: next to this one.
    let directory: URL
    /// The runtime directory; removed at the end when the demo made it.
    let runtime: String
    let removesRuntime: Bool
    private let children = Mutex<[Child]>([])
    /// Set once every process is being stopped: nothing is started after (a supervisor restarting flowd would leave
    /// one behind).
    private let stopping = Mutex(false)

    /// Whether the demo is stopping its processes.
    var isStopping: Bool { stopping.withLock { $0 } }

    init(runtime: String, removesRuntime: Bool) {
        directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        self.runtime = runtime
        self.removesRuntime = removesRuntime
    }

    /// Stops everything on Ctrl-C, SIGTERM or SIGHUP (its terminal closed), then exits 130; keep the sources
    /// returned alive meanwhile.
    func stopOnSignals() -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                FileHandle.standardError.write(Data("\nflowdemo: interrupted; stopping every process\n".utf8))
                stopAll()
                exit(130)
            }
            source.resume()
            return source
        }
    }

    /// Starts `executable` (a sibling of this one) with `arguments`; its output goes to ours (nowhere when
    /// `quiet`). With `input`, its standard input is a pipe the demo writes to; otherwise it shares ours.
    @discardableResult
    func start(
        _ name: String,
        _ executable: String,
        _ arguments: [String],
        input: Bool = true,
        quiet: Bool = false
    ) throws -> Child {
        guard !isStopping else { throw DemoFailure("the demo is stopping: \(name) is not started") }
        let process = Process()
        process.executableURL = directory.appendingPathComponent(executable)
        process.arguments = arguments
        let pipe = input ? Pipe() : nil
        process.standardInput = pipe ?? FileHandle.standardInput
        if quiet {
            process.standardOutput = FileHandle.nullDevice
        }
        try process.run()
        let child = Child(name: name, process: process, input: pipe)
        children.withLock { $0.append(child) }
        // Started while the demo began to stop: stopped at once, not left behind.
        if isStopping {
            stop(child)
            throw DemoFailure("the demo is stopping: \(name) is not started")
        }
        return child
    }

    /// Forgets a child that ended by itself.
    func forget(_ child: Child) {
        children.withLock { $0.removeAll { $0 === child } }
    }

    /// Kills a child at once (SIGKILL), as a crash would.
    func kill(_ child: Child) {
        Foundation.kill(child.process.processIdentifier, SIGKILL)
        child.process.waitUntilExit()
        children.withLock { $0.removeAll { $0 === child } }
    }

    /// Interrupts a child (SIGINT, as Ctrl-C) and waits for it to finish, as a recorder does on Ctrl-C.
    func interrupt(_ child: Child) {
        Foundation.kill(child.process.processIdentifier, SIGINT)
        if !waitForExit(child.process, within: .seconds(5)) {
            stop(child)
            return
        }
        children.withLock { $0.removeAll { $0 === child } }
    }

    /// Asks a child to stop by closing its input (the demo's processes quit at its end), then SIGTERM, then
    /// SIGKILL, each after a grace period.
    func stop(_ child: Child) {
        try? child.input?.fileHandleForWriting.close()
        if !waitForExit(child.process, within: .seconds(3)) {
            child.process.terminate()
            if !waitForExit(child.process, within: .seconds(3)) {
                Foundation.kill(child.process.processIdentifier, SIGKILL)
                child.process.waitUntilExit()
            }
        }
        children.withLock { $0.removeAll { $0 === child } }
    }

    /// Stops every child, last started first, and removes the runtime directory if the demo made it.
    func stopAll() {
        stopping.withLock { $0 = true }
        for child in children.withLock({ $0 }).reversed() {
            stop(child)
        }
        if removesRuntime {
            try? FileManager.default.removeItem(atPath: runtime)
        }
    }

    private func waitForExit(_ process: Process, within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        return !process.isRunning
    }
}
