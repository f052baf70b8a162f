import FlowHTTP
import FlowWire
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// flowd's WebSocket endpoint (`--websocket HOST:PORT`): SwiftNIO's HTTP/1.1 and WebSocket on one event loop
/// thread of its own, which does the handshakes, the framing and the bounds of the transport, and hands what each
/// connection sends to flowd's loop through a ``WebSocketInbox``. The protocol itself is the coordinator's, as for a
/// ZeroMQ connection: nothing of it is read here.
///
/// Bounds: at most ``WebSocketSettings/maxConnections`` connections (more are closed as they open); 10 s to finish a
/// handshake; a frame, and a message however fragmented (at most 64 fragments), of at most `maxMessageSize` and 8 KiB
/// of framing; the liveness and queues of ``WebSocketPeerHandler`` and ``WebSocketConnection``.
final class WebSocketEndpoint: Sendable {
    /// Where it listens (the port the system chose, when 0 was asked for).
    let address: MetricsAddress
    /// What its connections did, for the loop.
    let inbox: WebSocketInbox
    /// The tokens its handshakes accept; a reload replaces them.
    let tokens: WebSocketTokenTable
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup

    /// How long a connection may take to become a WebSocket.
    static let handshakeDeadline = TimeAmount.seconds(10)
    /// The most fragments a message may come in.
    static let maxFragments = 64

    private init(
        address: MetricsAddress,
        inbox: WebSocketInbox,
        tokens: WebSocketTokenTable,
        channel: any Channel,
        group: MultiThreadedEventLoopGroup
    ) {
        self.address = address
        self.inbox = inbox
        self.tokens = tokens
        self.channel = channel
        self.group = group
    }

    /// Binds the endpoint and starts taking connections.
    /// - Parameters:
    ///   - settings: its address, origins, tokens and bounds.
    ///   - configuration: flowd's (the message size, the heartbeats).
    ///   - assets: the files it serves by path besides (`/flowbus.js`).
    ///   - tokens: the tokens its handshakes accept (a reload replaces them).
    ///   - logger: where refusals and the address are logged.
    /// - Throws: ``DaemonError`` saying why the address cannot be bound.
    static func bind(
        _ settings: WebSocketSettings,
        configuration: DaemonConfiguration,
        assets: [String: WebAsset],
        tokens: WebSocketTokenTable,
        logger: Logger
    ) throws -> WebSocketEndpoint {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let pipeline = try PeerPipeline(configuration: configuration)
        let decide = deciding(settings, tokens: tokens, logger: logger)
        let upgrader = upgrader(settings, tokens: tokens, decide: decide, pipeline: pipeline)
        let connections = ConnectionCount(limit: settings.maxConnections)
        let channel: any Channel
        do {
            channel = try ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(
                    .writeBufferWaterMark,
                    value: ChannelOptions.Types.WriteBufferWaterMark(
                        low: pipeline.sendQueueBytes / 4,
                        high: pipeline.sendQueueBytes
                    )
                )
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try startHTTP(channel, connections: connections, upgrader: upgrader, assets: assets, decide)
                    }
                }
                .bind(host: settings.address.host, port: Int(settings.address.port))
                .wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw DaemonError(bindFailure(settings.address, error))
        }
        let bound = MetricsAddress(
            host: settings.address.host,
            port: UInt16(channel.localAddress?.port ?? Int(settings.address.port))
        )
        return WebSocketEndpoint(address: bound, inbox: pipeline.inbox, tokens: tokens, channel: channel, group: group)
    }

    /// What a new connection starts with: the connection limit, the handshake's deadline, HTTP/1.1 with the
    /// WebSocket upgrade, and the HTTP handler that serves the assets and says why a handshake was refused.
    private static func startHTTP(
        _ channel: any Channel,
        connections: ConnectionCount,
        upgrader: NIOWebSocketServerUpgrader,
        assets: [String: WebAsset],
        _ decide: @escaping @Sendable (HTTPRequestHead, any Channel) -> WebSocketHandshake.Decision
    ) throws {
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(ConnectionLimitHandler(connections))
        try operations.addHandler(HandshakeDeadlineHandler(deadline: handshakeDeadline))
        try operations.configureHTTPServerPipeline(
            withServerUpgrade: (
                upgraders: [upgrader],
                completionHandler: { context in
                    context.pipeline.removeHandler(name: httpHandlerName, promise: nil)
                }
            )
        )
        let answers = WebSocketEndpointAnswers(assets: assets, decide: decide)
        try operations.addHandler(
            HTTPRequestResponder(tolerating: WebSocketEndpointAnswers.tolerates) { head, channel in
                answers.answer(head, on: channel)
            },
            name: httpHandlerName
        )
    }

    /// Decides a handshake, and logs a refusal.
    private static func deciding(
        _ settings: WebSocketSettings,
        tokens: WebSocketTokenTable,
        logger: Logger
    ) -> @Sendable (HTTPRequestHead, any Channel) -> WebSocketHandshake.Decision {
        { head, channel in
            let decision = handshake(head, channel).decide(settings: settings, tokens: tokens)
            switch decision {
            case .accept: break
            case .acceptThenClose(let code, let reason):
                logger.info("closed a WebSocket connection at once (\(code)): \(reason)", metadata: origin(of: channel))
            case .refuse(let status, let reason):
                logger.info("refused a WebSocket handshake (\(status)): \(reason)", metadata: origin(of: channel))
            }
            return decision
        }
    }

    /// The upgrade to WebSocket: only what the handshake accepts is upgraded (with the subprotocol); an accepted
    /// connection becomes a peer (``PeerPipeline``), one accepted to be closed is closed with its code.
    private static func upgrader(
        _ settings: WebSocketSettings,
        tokens: WebSocketTokenTable,
        decide: @escaping @Sendable (HTTPRequestHead, any Channel) -> WebSocketHandshake.Decision,
        pipeline: PeerPipeline
    ) -> NIOWebSocketServerUpgrader {
        NIOWebSocketServerUpgrader(
            maxFrameSize: pipeline.maxMessage,
            automaticErrorHandling: true,
            shouldUpgrade: { channel, head in
                guard case .refuse = handshake(head, channel).decide(settings: settings, tokens: tokens) else {
                    var headers = HTTPHeaders()
                    headers.add(name: "Sec-WebSocket-Protocol", value: WebSocketText.subprotocol)
                    return channel.eventLoop.makeSucceededFuture(headers)
                }
                // Not upgraded: the request goes on to the HTTP handler, which says why.
                return channel.eventLoop.makeSucceededFuture(nil)
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    let deadline = try operations.handler(type: HandshakeDeadlineHandler.self)
                    operations.removeHandler(deadline, promise: nil)
                    switch decide(head, channel) {
                    case .accept(let id, let userID):
                        try pipeline.install(on: channel, id: id, userID: userID)
                    case .acceptThenClose(let code, let reason):
                        WebSocketConnection.close(channel, code: code, reason: reason)
                    case .refuse:
                        channel.close(promise: nil)
                    }
                }
            }
        )
    }

    /// What makes an upgraded connection a peer: its messages joined from their fragments, then its handler, which
    /// hands them to the loop's inbox and keeps the connection alive and bounded.
    private struct PeerPipeline: Sendable {
        let inbox: WebSocketInbox
        /// The largest frame or message, framing included.
        let maxMessage: Int
        /// The most bytes queued for a connection before what it is sent is dropped.
        let sendQueueBytes: Int
        let heartbeatInterval: TimeAmount
        let heartbeatTimeout: TimeAmount
        /// Numbers the connections as they come.
        let serials = Counter()

        init(configuration: DaemonConfiguration) throws {
            inbox = try WebSocketInbox()
            maxMessage = configuration.maxMessageSize + 8192
            sendQueueBytes = max(1 << 20, 4 * maxMessage)
            heartbeatInterval = .milliseconds(configuration.heartbeatInterval.milliseconds)
            heartbeatTimeout = .milliseconds(configuration.heartbeatTimeout.milliseconds)
        }

        func install(on channel: any Channel, id: String, userID: String?) throws {
            let connection = WebSocketConnection(
                serial: serials.next(),
                id: id,
                userID: userID,
                address: channel.remoteAddress.map(WebSocketEndpoint.describe) ?? "?",
                channel: channel,
                sendQueueBytes: sendQueueBytes
            )
            let operations = channel.pipeline.syncOperations
            try operations.addHandler(
                NIOWebSocketFrameAggregator(
                    minNonFinalFragmentSize: 1,
                    maxAccumulatedFrameCount: WebSocketEndpoint.maxFragments,
                    maxAccumulatedFrameSize: maxMessage
                )
            )
            try operations.addHandler(
                WebSocketPeerHandler(
                    connection: connection,
                    inbox: inbox,
                    heartbeatInterval: heartbeatInterval,
                    heartbeatTimeout: heartbeatTimeout
                )
            )
        }
    }

    /// A number that goes up, safe from any thread.
    private final class Counter: Sendable {
        private let value = Atomic<Int>(0)

        func next() -> Int {
            value.add(1, ordering: .relaxed).newValue
        }
    }

    private static let httpHandlerName = "flowbus-http"

    /// Stops listening and closes every connection; returns once the endpoint's thread is done.
    func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    /// What a handshake request presents.
    private static func handshake(_ head: HTTPRequestHead, _ channel: any Channel) -> WebSocketHandshake {
        WebSocketHandshake(
            uri: head.uri,
            origin: head.headers.first(name: "Origin"),
            subprotocols: head.headers[canonicalForm: "Sec-WebSocket-Protocol"].map { String($0) },
            authorization: head.headers.first(name: "Authorization"),
            fromLoopback: channel.remoteAddress.map(isLoopback) ?? false
        )
    }

    private static func isLoopback(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4: address.ipAddress?.hasPrefix("127.") ?? false
        case .v6: address.ipAddress == "::1" || address.ipAddress?.hasPrefix("::ffff:127.") == true
        case .unixDomainSocket: true
        }
    }

    /// `address:port` of a connection, as logs show it.
    static func describe(_ address: SocketAddress) -> String {
        guard let ip = address.ipAddress, let port = address.port else { return "\(address)" }
        return address.protocol == .inet6 ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }

    private static func origin(of channel: any Channel) -> Logger.Metadata {
        ["from": "\(channel.remoteAddress.map(describe) ?? "?")"]
    }

    /// What to say when the endpoint cannot listen.
    static func bindFailure(_ address: MetricsAddress, _ error: any Error) -> String {
        MetricsService.bindFailure(address, error).replacingOccurrences(
            of: "metrics (--metrics \(address))",
            with: "websocket (--websocket \(address))"
        )
    }
}
