import NIOCore
import NIOHTTP1
import NIOWebSocket

/// A file the WebSocket endpoint serves over plain HTTP beside it (`/flowbus.js`, the JavaScript client).
public struct WebAsset: Sendable {
    /// Its `Content-Type`.
    public var contentType: String
    /// Its bytes.
    public var bytes: [UInt8]

    /// An asset of `bytes` served as `contentType`.
    /// - Parameters:
    ///   - contentType: its `Content-Type` (`text/javascript; charset=utf-8`).
    ///   - bytes: its content.
    public init(contentType: String, bytes: [UInt8]) {
        self.contentType = contentType
        self.bytes = bytes
    }
}

/// Answers the requests of the WebSocket endpoint that are not an upgrade: its assets by path (any origin may load
/// them: they are public code), and for the endpoint's own path, why the upgrade was refused (a status and a
/// reason) or that an upgrade is needed (426). Anything else is 404.
final class WebSocketHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let assets: [String: WebAsset]
    private let decide: @Sendable (HTTPRequestHead, (any Channel)) -> WebSocketHandshake.Decision
    private var request: HTTPRequestHead?

    init(
        assets: [String: WebAsset],
        decide: @escaping @Sendable (HTTPRequestHead, any Channel) -> WebSocketHandshake.Decision
    ) {
        self.assets = assets
        self.decide = decide
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            request = head
        case .body:
            break
        case .end:
            guard let head = request else { return }
            request = nil
            respond(context: context, head: head)
        }
    }

    private func respond(context: ChannelHandlerContext, head: HTTPRequestHead) {
        let text = "text/plain; charset=utf-8"
        let path = String(WebSocketHandshake.split(head.uri).path)
        let answer: (HTTPResponseStatus, String, [UInt8])
        if head.method != .GET && head.method != .HEAD {
            answer = (.methodNotAllowed, text, Array("flowd's WebSocket endpoint serves GET and HEAD only\n".utf8))
        } else if let asset = assets[path] {
            answer = (.ok, asset.contentType, asset.bytes)
        } else if path == "/flowbus" {
            switch decide(head, context.channel) {
            case .refuse(let status, let reason):
                answer = (HTTPResponseStatus(statusCode: status), text, Array((reason + "\n").utf8))
            default:
                answer = (
                    .upgradeRequired, text,
                    Array("this is flowd's WebSocket endpoint: open it with a WebSocket client\n".utf8)
                )
            }
        } else {
            let served = (["/flowbus"] + assets.keys.sorted()).joined(separator: ", ")
            answer = (.notFound, text, Array("not found: flowd serves \(served) here\n".utf8))
        }
        let (status, contentType, body) = answer
        HTTPReply.send(
            context: context,
            to: head,
            status: status,
            contentType: contentType,
            body: body,
            headers: [
                ("Access-Control-Allow-Origin", "*"), ("Cache-Control", "no-cache"),
                ("X-Content-Type-Options", "nosniff"),
            ],
            keepAlive: head.isKeepAlive && status == .ok
        )
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A declined upgrade comes this way before its request does: the request is answered with the reason.
        if error is NIOWebSocketUpgradeError {
            return
        }
        context.close(promise: nil)
    }
}

/// Closes a connection that has not become a WebSocket within its deadline (a handshake that never ends, a
/// connection that only holds a file descriptor); the upgrade removes it.
final class HandshakeDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let deadline: TimeAmount
    private var timer: Scheduled<Void>?

    init(deadline: TimeAmount) {
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: deadline) {
            channel.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }
}
