import NIOCore
import NIOHTTP1

/// Answers each HTTP/1.1 request of a connection, once it has come whole, with what `answer` says (request bodies
/// are ignored; keep-alive is honoured unless the answer says otherwise). A connection an `IdleStateHandler` finds
/// idle is closed, and so is one that fails, unless `tolerates` the error (one handled further on).
public final class HTTPRequestResponder: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPServerRequestPart
    public typealias OutboundOut = HTTPServerResponsePart

    private let answer: (HTTPRequestHead, any Channel) -> HTTPAnswer
    private let tolerates: (any Error) -> Bool
    private var request: HTTPRequestHead?

    /// A responder; `answer` is called on the connection's event loop, so it must not block.
    public init(
        tolerating tolerates: @escaping (any Error) -> Bool = { _ in false },
        answer: @escaping (HTTPRequestHead, any Channel) -> HTTPAnswer
    ) {
        self.answer = answer
        self.tolerates = tolerates
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            request = head
        case .body:
            break
        case .end:
            guard let head = request else { return }
            request = nil
            HTTPReply.send(answer(head, context.channel), to: head, context: context)
        }
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !tolerates(error) {
            context.close(promise: nil)
        }
    }
}
