import NIOCore
import NIOWebSocket

/// Reads one WebSocket peer's frames (whole messages: ``NIOWebSocketFrameAggregator`` before it joins fragments)
/// and hands its text messages to the loop through the ``WebSocketInbox``. It keeps the connection alive and
/// bounded: a ping every heartbeat interval, closed (4408) when nothing came back for the heartbeat timeout; a binary
/// message is closed with 1003; a message too big or too fragmented with 1009; it stops reading while the loop has
/// ``WebSocketConnection/unreadLimit`` of its messages to take.
final class WebSocketPeerHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let connection: WebSocketConnection
    private let inbox: WebSocketInbox
    private let heartbeatInterval: TimeAmount
    private let heartbeatTimeout: TimeAmount
    private var lastHeard = NIODeadline.now()
    private var liveness: RepeatedTask?
    private var paused = false
    private var readWanted = false
    private var closing = false

    init(
        connection: WebSocketConnection,
        inbox: WebSocketInbox,
        heartbeatInterval: TimeAmount,
        heartbeatTimeout: TimeAmount
    ) {
        self.connection = connection
        self.inbox = inbox
        self.heartbeatInterval = heartbeatInterval
        self.heartbeatTimeout = heartbeatTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        connection.onResume {
            eventLoop.execute {
                let (handler, context) = loopBound.value
                handler.resumeReading(context: context)
            }
        }
        liveness = context.eventLoop.scheduleRepeatedTask(
            initialDelay: heartbeatInterval,
            delay: heartbeatInterval
        ) { _ in
            let (handler, context) = loopBound.value
            handler.checkLiveness(context: context)
        }
        inbox.post(.opened(connection))
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        liveness?.cancel()
        liveness = nil
        connection.onResume(nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        liveness?.cancel()
        liveness = nil
        connection.onResume(nil)
        inbox.post(.closed(connection))
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        lastHeard = .now()
        switch frame.opcode {
        case .text:
            guard !closing else { return }
            if connection.arrived() {
                paused = true
            }
            inbox.post(.text(connection, Array(buffer: frame.unmaskedData)))
        case .binary:
            close(
                context: context,
                code: 1003,
                reason: "flowd speaks text messages only (the FlowBus protocol over WebSocket)"
            )
        case .ping:
            var data = frame.unmaskedData
            let pong = WebSocketFrame(
                fin: true,
                opcode: .pong,
                data: data.readSlice(length: data.readableBytes) ?? data
            )
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .pong:
            break
        case .connectionClose:
            // The peer closes: answer with its code, and close.
            guard !closing else {
                context.close(promise: nil)
                return
            }
            closing = true
            var data = frame.unmaskedData
            let code = data.readWebSocketErrorCode() ?? .normalClosure
            var reply = context.channel.allocator.buffer(capacity: 2)
            reply.write(webSocketErrorCode: code)
            let answer = WebSocketFrame(fin: true, opcode: .connectionClose, data: reply)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(answer)).whenComplete { _ in
                channel.close(promise: nil)
            }
        default:
            close(context: context, code: 1002, reason: "a frame of an unknown kind")
        }
    }

    func read(context: ChannelHandlerContext) {
        if paused {
            readWanted = true
        } else {
            context.read()
        }
    }

    private func resumeReading(context: ChannelHandlerContext) {
        paused = false
        if readWanted {
            readWanted = false
            context.read()
        }
    }

    private func checkLiveness(context: ChannelHandlerContext) {
        guard !closing else { return }
        if NIODeadline.now() - lastHeard > heartbeatTimeout {
            close(
                context: context,
                code: WebSocketCloseCode.silent,
                reason: "nothing came back for the heartbeat timeout"
            )
            return
        }
        let ping = WebSocketFrame(fin: true, opcode: .ping, data: context.channel.allocator.buffer(capacity: 0))
        context.writeAndFlush(wrapOutboundOut(ping), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case NIOWebSocketError.multiByteControlFrameLength, NIOWebSocketError.fragmentedControlFrame:
            close(context: context, code: 1002, reason: "a malformed control frame")
        case NIOWebSocketFrameAggregator.Error.receivedNewFrameWithoutFinishingPrevious,
            NIOWebSocketFrameAggregator.Error.didReceiveFragmentBeforeReceivingTextOrBinaryFrame:
            close(context: context, code: 1002, reason: "fragments out of order")
        case is NIOWebSocketFrameAggregator.Error, NIOWebSocketError.invalidFrameLength:
            close(context: context, code: 1009, reason: "a message bigger, or in more fragments, than flowd takes")
        default:
            close(context: context, code: 1002, reason: "a WebSocket protocol error")
        }
    }

    private func close(context: ChannelHandlerContext, code: UInt16, reason: String) {
        guard !closing else { return }
        closing = true
        WebSocketConnection.close(context.channel, code: code, reason: reason)
    }
}
