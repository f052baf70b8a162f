import ArgumentParser
import FlowBuildInfo
import FlowBus
import FlowInspector
import FlowSpec
import FlowWebInspector
import FlowWire
import Foundation

/// `flowctl web`: the live inspector in a browser.
struct Web: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Serve a live inspector in the browser: sessions, flow trees, screens, every step's fate, recordings.",
        discussion: """
            flowctl watches flowd as `flowctl watch` does (its inspection stream, every instance of a fleet, with \
            the CURVE keys and endpoints given) and serves a page on a local port; it prints the page's URL. The \
            page shows every session live, the selected session's flow tree and screens, a timeline of steps with \
            their fate (a drop with its reason and remedy), navigations, flows and peers, the tree just before and \
            after each event, and the flow file; a `flowctl record` file opened in the page is replayed with the \
            flow file and scrubbed through (with --offline, no flowd is needed). The page keeps the last --history \
            events. When flowd goes away the page says so, and flowctl waits for it to come back.

            Exits 0 when stopped (Ctrl-C), 64 on bad arguments, 1 when the address cannot be served.

            Examples:
              flowctl web --open
              flowctl web --port 8090 --session kiosk-7
              flowctl web --offline --flows deploy/flows/movies.yaml
            """
    )

    @Option(help: "The address to serve the page on (loopback by default: the page shows everything flowd holds).")
    var address = "127.0.0.1"

    @Option(help: "The port to serve the page on; 0 lets the system choose.")
    var port = 5870

    @Flag(help: "Open the page in a browser (xdg-open), where there is one.")
    var open = false

    @Option(help: "Select this session when the page opens.")
    var session: String?

    @Option(help: "How many events the page keeps (its history, 100 to 1000000: older ones are let go).")
    var history = 5000

    @Option(
        help:
            "The flow file recordings are replayed and live sessions mirrored with (default: the one flowd runs, when flowctl can read it)."
    )
    var flows: String?

    @Flag(help: "Do not watch flowd: only open recordings (needs --flows).")
    var offline = false

    @OptionGroup var bus: BusOptions

    func validate() throws {
        guard (0...65535).contains(port) else {
            throw ValidationError("--port must be 0 to 65535, not \(port)")
        }
        guard (100...1_000_000).contains(history) else {
            throw ValidationError("--history must be 100 to 1000000 events, not \(history)")
        }
        if offline && flows == nil {
            throw ValidationError("--offline replays recordings with a flow file: give --flows")
        }
        if let flows, !FileManager.default.isReadableFile(atPath: flows) {
            throw ValidationError("cannot read the flow file \(flows)")
        }
    }

    func run() async throws {
        let hello: JSONValue = [
            "type": "hello", "version": 1, "mode": .string(offline ? "offline" : "live"),
            "target": .string(offline ? "" : bus.endpoints.control), "history": .int(history),
            "flowctl": .string(BuildInfo.version), "session": session.map(JSONValue.string) ?? .null,
        ]
        let hub = FeedHub(hello: hello, history: history)
        let server: InspectorWebServer
        do {
            server = try InspectorWebServer(host: address, port: port, hub: hub)
        } catch {
            let why =
                "\(error)".contains("Address already in use")
                ? "the port is taken (another flowctl web?): choose another with --port, or --port 0 for a free one"
                : "\(error)"
            printError("flowctl: cannot serve the page on \(address):\(port): \(why)")
            throw ExitCode(1)
        }
        defer { server.stop() }
        var url = server.url
        if let session {
            url += "?session=" + (session.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? session)
        }
        printLine("flowctl web: \(url)")
        printError("flowctl web: serving the inspector; Ctrl-C to stop")
        if open {
            openBrowser(url)
        }
        let live = offline ? nil : WebLiveFeed(bus: bus, hub: hub, flows: flows)
        if offline {
            hub.broadcast(
                ["type": "status", "connected": false, "message": "offline: open a recording (no flowd is watched)"],
                keep: true
            )
        }
        let recordings = WebRecordings(flows: flows, hub: hub)
        let requests = Task {
            for await request in hub.requests {
                switch request {
                case .connected:
                    await live?.pageConnected()
                case .select(_, let session):
                    await live?.selected(session)
                case .treesAround(let page, let session, let seq):
                    if let live {
                        hub.send(await live.trees(around: seq, in: session), to: page)
                    } else {
                        hub.send(
                            MirrorGap.offline.message(session: session, seq: seq),
                            to: page
                        )
                    }
                case .openRecording(let page, let name, let text):
                    // Replayed apart: a long recording does not hold up the other pages' requests.
                    let flowdFlows = await live?.flowsFile
                    Task.detached { recordings.open(text, name: name, for: page, flowdFlows: flowdFlows) }
                }
            }
        }
        let watching = Task { await live?.run() }
        await SignalWait.interrupt()
        watching.cancel()
        requests.cancel()
        hub.finish()
        await watching.value
    }

    private func openBrowser(_ url: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", url]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            printError("flowctl web: no browser to open here (\(error)); open \(url)")
        }
    }
}
