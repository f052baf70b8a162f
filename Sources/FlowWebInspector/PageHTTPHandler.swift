import NIOCore
import NIOHTTP1

/// Answers the page's plain HTTP requests: its files by path (`?…` ignored), and for anything else a 404 that says
/// what is served; only GET and HEAD.
final class PageHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let assets: PageAssets
    private var request: HTTPRequestHead?

    init(assets: PageAssets) {
        self.assets = assets
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
        let path = String(head.uri.prefix { $0 != "?" && $0 != "#" })
        let answer: (status: HTTPResponseStatus, type: String, body: [UInt8])
        if head.method != .GET && head.method != .HEAD {
            answer = (.methodNotAllowed, text, Array("flowctl web serves GET and HEAD only\n".utf8))
        } else if let file = assets[path] {
            answer = (.ok, file.contentType, file.bytes)
        } else if path == InspectorWebServer.feedPath {
            answer = (.upgradeRequired, text, Array("\(path) is the inspector page's WebSocket feed\n".utf8))
        } else {
            let message =
                "flowctl web has no page at \(path.prefix(200)): the inspector is at /, its feed at \(InspectorWebServer.feedPath)\n"
            answer = (.notFound, text, Array(message.utf8))
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: answer.type)
        headers.add(name: "Content-Length", value: String(answer.body.count))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        let keepAlive = head.isKeepAlive
        if !keepAlive {
            headers.add(name: "Connection", value: "close")
        }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: answer.status, headers: headers))),
            promise: nil
        )
        if head.method != .HEAD {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: answer.body)))),
                promise: nil
            )
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            done.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
        }
    }
}
