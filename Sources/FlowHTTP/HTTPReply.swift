import NIOCore
import NIOHTTP1

/// Writes one whole HTTP/1.1 response (head, body unless the request was HEAD, end) and, unless the connection is
/// kept alive, closes it once written: what FlowBus's small HTTP endpoints (flowd's metrics and WebSocket endpoints,
/// the demo's page, `flowctl web`'s page) answer with.
public enum HTTPReply {
    /// Writes `answer` to the request `head` on `context`'s connection.
    public static func send(_ answer: HTTPAnswer, to head: HTTPRequestHead, context: ChannelHandlerContext) {
        send(
            context: context,
            to: head,
            status: answer.status,
            contentType: answer.contentType,
            body: answer.body,
            headers: answer.headers,
            keepAlive: answer.keepAlive
        )
    }

    /// Writes a response: `keepAlive` nil keeps the connection open when the request asked for it.
    public static func send(
        context: ChannelHandlerContext,
        to head: HTTPRequestHead,
        status: HTTPResponseStatus,
        contentType: String,
        body: [UInt8],
        headers extra: [(String, String)] = [],
        keepAlive: Bool? = nil
    ) {
        let keepAlive = keepAlive ?? head.isKeepAlive
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: "\(body.count)")
        for (name, value) in extra {
            headers.add(name: name, value: value)
        }
        if !keepAlive {
            headers.add(name: "Connection", value: "close")
        }
        context.write(
            NIOAny(
                HTTPServerResponsePart.head(HTTPResponseHead(version: head.version, status: status, headers: headers))
            ),
            promise: nil
        )
        if head.method != .HEAD {
            context.write(
                NIOAny(HTTPServerResponsePart.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))),
                promise: nil
            )
        }
        let done = context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
