import ArgumentParser
import FlowBus
import FlowDemo
import Foundation

/// `flowdemo web`: the movie app as a web page, drawn by a browser over flowd's WebSocket endpoint.
struct Web: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The movie app as a web page: flowd with its WebSocket endpoint, the app stepper and the page.",
        discussion: """
            Starts flowd (with --websocket, keeping its sessions in the runtime directory, so that a flowd killed \
            and started again comes back with them), the app stepper, and a small server for the page, then prints \
            the page's URL: open it in a browser. The page is a FlowBus presenter (flowbus.js) and the \
            authentication stepper; reload it, or kill flowd (it is started again), and it comes back on the same \
            screens. Ctrl-C stops every process.
            """
    )

    @Option(help: "The session.")
    var session = "demo"

    @Option(help: "The flow file.")
    var flows = "deploy/flows/movies.yaml"

    @Option(help: "Where the page is served, HOST:PORT (port 0: any free port).")
    var page = "127.0.0.1:8080"

    @Option(help: "flowd's WebSocket endpoint, HOST:PORT on a loopback address (port 0: any free port).")
    var websocket = "127.0.0.1:5862"

    @Option(
        help: "Where the ipc sockets and flowd's state go (default: a new temporary directory, removed at the end)."
    )
    var runtimeDirectory: String?

    @Flag(help: "Start on the dashboard instead of onboarding (a returning user).")
    var returning = false

    func validate() throws {
        guard FileManager.default.fileExists(atPath: flows) else {
            throw ValidationError("no flow file at \(flows); run from the repository, or pass --flows")
        }
        for (name, value) in [("--page", page), ("--websocket", websocket)] where Self.split(value) == nil {
            throw ValidationError("\(name) takes HOST:PORT, such as 127.0.0.1:8080, not '\(value)'")
        }
    }

    func run() async throws {
        let runtime =
            runtimeDirectory ?? NSTemporaryDirectory() + "flowdemo-web-\(ProcessInfo.processInfo.processIdentifier)"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let processes = DemoProcesses(runtime: runtime, removesRuntime: runtimeDirectory == nil)
        let signalSources = processes.stopOnSignals()
        defer { withExtendedLifetime(signalSources) {} }
        guard let (webSocketHost, requestedPort) = Self.split(websocket), let (pageHost, pagePort) = Self.split(page)
        else { return }
        let webSocketPort = requestedPort == 0 ? try FreePort.take(on: webSocketHost) : requestedPort
        let endpoints = ["--control", "ipc://\(runtime)/control", "--events", "ipc://\(runtime)/events"]
        // flowd keeps its sessions in the runtime directory: never the user's state directory, and a flowd started
        // again finds them.
        let flowdArguments =
            [
                "--flows", flows, "--no-tcp", "--state-dir", "\(runtime)/state", "--log-level", "warning",
                "--websocket", "\(webSocketHost):\(webSocketPort)",
            ] + endpoints
        var flowd: DemoProcesses.Child
        var server: DemoWebServer?
        do {
            flowd = try processes.start("flowd", "flowd", flowdArguments, input: false)
            var options = ClientOptions(
                endpoints: Endpoints(control: "ipc://\(runtime)/control", events: "ipc://\(runtime)/events")
            )
            options.connectTimeout = .seconds(20)
            let inspector = try await InspectorClient.connect(name: "flowdemo-web", options: options)
            await inspector.close()
            try processes.start(
                "app",
                "flowdemo",
                ["app", "--session", session] + endpoints + (returning ? ["--returning"] : []),
                quiet: true
            )
            let webSocketURL = "ws://\(Self.hostInURL(webSocketHost)):\(webSocketPort)/flowbus"
            server = try DemoWebServer(host: pageHost, port: pagePort, webSocketURL: webSocketURL, session: session)
            Self.say(
                """
                The movie app, session \(session): open http://\(Self.hostInURL(pageHost)):\(server?.port ?? pagePort)/
                flowd's WebSocket endpoint: \(webSocketURL) (flowbus.js: http://\(Self.hostInURL(webSocketHost)):\(webSocketPort)/flowbus.js)
                Ctrl-C stops everything.
                """
            )
        } catch {
            server?.stop()
            processes.stopAll()
            FileHandle.standardError.write(Data("flowdemo web: \(error)\n".utf8))
            throw ExitCode(1)
        }
        // flowd is kept running, as a supervisor would: killed, it is started again on the same state.
        while true {
            try await Task.sleep(for: .milliseconds(100))
            // Stopping (Ctrl-C): flowd ends with the rest and is not started again; the signal's handler exits once
            // every process is stopped.
            guard !processes.isStopping, !flowd.process.isRunning else { continue }
            Self.say("flowd stopped (status \(flowd.process.terminationStatus)); starting it again")
            processes.forget(flowd)
            do {
                flowd = try processes.start("flowd", "flowd", flowdArguments, input: false)
            } catch {
                server?.stop()
                processes.stopAll()
                FileHandle.standardError.write(Data("flowdemo web: cannot start flowd again: \(error)\n".utf8))
                throw ExitCode(1)
            }
        }
    }

    /// Writes a line on standard output at once (it is read by whoever started the demo).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// `HOST:PORT` split; `nil` when it is not of that form.
    static func split(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }

    /// A host as a URL holds it: IPv6 in brackets.
    static func hostInURL(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }
}

/// A free TCP port, found by binding port 0 and closing.
enum FreePort {
    static func take(on host: String) throws -> Int {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw DemoFailure("cannot find a free port: no socket") }
        defer { close(socketDescriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr(host == "localhost" ? "127.0.0.1" : host)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, length) }
        }
        guard bound == 0 else { throw DemoFailure("cannot find a free port on \(host)") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketDescriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
