import FlowHTTP
import FlowWebClient
import NIOCore
import NIOHTTP1
import NIOPosix

/// The web demo's page server: the movie app's page (`/`), its script and style, the JavaScript client
/// (`/flowbus.js`) and `/config.json` (flowd's WebSocket URL and the session), over HTTP/1.1 on one thread of its own.
/// The page then talks to flowd directly, over WebSocket.
public final class DemoWebServer: Sendable {
    /// The port it listens on (the one the system chose, when 0 was asked for).
    public let port: Int
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup

    /// Starts serving on `host`:`port`.
    /// - Parameters:
    ///   - host: the address to listen on (`127.0.0.1`).
    ///   - port: the port; 0 lets the system choose.
    ///   - webSocketURL: flowd's WebSocket endpoint, as the page connects to it.
    ///   - session: the session the page presents.
    /// - Throws: when the address cannot be bound.
    public init(host: String, port: Int, webSocketURL: String, session: String) throws {
        let config = "{\"websocket\":\"\(Self.escaped(webSocketURL))\",\"session\":\"\(Self.escaped(session))\"}"
        let files: [String: (String, [UInt8])] = [
            "/": ("text/html; charset=utf-8", PackageResources.index_html),
            "/index.html": ("text/html; charset=utf-8", PackageResources.index_html),
            "/demo.js": ("text/javascript; charset=utf-8", PackageResources.demo_js),
            "/demo.css": ("text/css; charset=utf-8", PackageResources.demo_css),
            "/flowbus.js": ("text/javascript; charset=utf-8", FlowWebClient.script),
            "/config.json": ("application/json", Array(config.utf8)),
        ]
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            channel = try ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let operations = channel.pipeline.syncOperations
                        try operations.configureHTTPServerPipeline(withErrorHandling: true)
                        try operations.addHandler(
                            HTTPRequestResponder { head, _ in
                                if let refused = HTTPAnswer.onlyGetAndHead(head, server: "the demo's page") {
                                    return refused
                                }
                                guard let (type, bytes) = files[head.path == "" ? "/" : head.path] else {
                                    return .text(
                                        .notFound,
                                        "not found: the demo serves \(files.keys.sorted().joined(separator: ", "))\n"
                                    )
                                }
                                return HTTPAnswer(
                                    .ok,
                                    contentType: type,
                                    body: bytes,
                                    headers: [("Cache-Control", "no-cache")]
                                )
                            }
                        )
                    }
                }
                .bind(host: host, port: port)
                .wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        self.group = group
        self.port = channel.localAddress?.port ?? port
    }

    /// Stops serving.
    public func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    private static func escaped(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
    }
}
