import NIOCore
import NIOWebSocket

/// One page's feed connection: its text messages go to the hub, pings are answered, a close is answered and the
/// connection closed; binary frames are refused (the feed is JSON text).
final class FeedConnection: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let hub: FeedHub
    private var page: Int?

    init(hub: FeedHub) {
        self.hub = hub
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive {
            page = hub.connected(context.channel)
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        if page == nil {
            page = hub.connected(context.channel)
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let page {
            hub.disconnected(page)
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            if let page {
                hub.received(Array(buffer: frame.unmaskedData), from: page)
            }
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            close(context, .normalClosure)
        case .binary:
            close(context, .unacceptableData)
        default:
            break
        }
    }

    /// Sends a close frame with `code`, then closes the connection.
    private func close(_ context: ChannelHandlerContext, _ code: WebSocketErrorCode) {
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { [channel = context.channel] _ in
            channel.close(promise: nil)
        }
    }
}
