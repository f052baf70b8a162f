import FlowHTTP
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// The inspector page's server: the page's files over HTTP/1.1 and its feed (``FeedHub``) over WebSocket at
/// ``feedPath``, on one thread of its own.
public final class InspectorWebServer: Sendable {
    /// Where the feed is.
    public static let feedPath = "/feed"
    /// The largest message a page may send (a recording's text).
    public static let maxPageMessage = 64 << 20

    private static let pageHandlerName = "page"

    /// The port it listens on (the one the system chose, when 0 was asked for).
    public let port: Int
    /// The address it listens on.
    public let host: String
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup

    /// Starts serving on `host`:`port`.
    /// - Throws: when the address cannot be bound (with the system's reason).
    public init(host: String, port: Int, hub: FeedHub) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let assets = PageAssets()
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: Self.maxPageMessage,
            automaticErrorHandling: true,
            shouldUpgrade: { channel, head in
                let path = head.uri.prefix { $0 != "?" }
                return channel.eventLoop.makeSucceededFuture(path == Self.feedPath ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    try operations.addHandler(
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 0,
                            maxAccumulatedFrameCount: 4096,
                            maxAccumulatedFrameSize: Self.maxPageMessage
                        )
                    )
                    try operations.addHandler(FeedConnection(hub: hub))
                }
            }
        )
        do {
            channel = try ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(
                    .writeBufferWaterMark,
                    value: ChannelOptions.Types.WriteBufferWaterMark(low: 1 << 20, high: 8 << 20)
                )
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let operations = channel.pipeline.syncOperations
                        try operations.configureHTTPServerPipeline(
                            withServerUpgrade: (
                                upgraders: [upgrader],
                                completionHandler: { context in
                                    context.pipeline.removeHandler(name: Self.pageHandlerName, promise: nil)
                                }
                            )
                        )
                        try operations.addHandler(
                            HTTPRequestResponder { head, _ in assets.answer(head) },
                            name: Self.pageHandlerName
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
        self.host = host
        self.port = channel.localAddress?.port ?? port
    }

    /// The page's URL.
    public var url: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "http://\(shown):\(port)/"
    }

    /// Stops serving.
    public func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}
