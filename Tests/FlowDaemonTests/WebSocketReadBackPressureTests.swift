import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import FlowDaemon

/// A WebSocket peer that sends faster than flowd's loop takes its messages: its handler stops asking its socket for
/// more at ``WebSocketConnection/unreadLimit`` messages waiting, and asks again once the loop took them (as a
/// ZeroMQ socket at its high-water mark stops taking). Run on NIO's embedded channel, with no socket and no clock.
@Suite struct WebSocketReadBackPressureTests {
    /// Counts the reads the peer's handler lets through to the socket.
    final class ReadCounter: ChannelOutboundHandler, @unchecked Sendable {
        typealias OutboundIn = Never
        var reads = 0

        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    private struct Peer {
        let channel: EmbeddedChannel
        let connection: WebSocketConnection
        let inbox: WebSocketInbox
        let reads: ReadCounter
    }

    private func peer() throws -> Peer {
        let channel = EmbeddedChannel()
        let inbox = try WebSocketInbox()
        let connection = WebSocketConnection(
            serial: 1,
            id: "kiosk",
            userID: nil,
            address: "127.0.0.1:1",
            channel: channel,
            sendQueueBytes: 1 << 20
        )
        let reads = ReadCounter()
        try channel.pipeline.syncOperations.addHandler(reads)
        try channel.pipeline.syncOperations.addHandler(
            WebSocketPeerHandler(
                connection: connection,
                inbox: inbox,
                heartbeatInterval: .seconds(3600),
                heartbeatTimeout: .seconds(7200)
            )
        )
        return Peer(channel: channel, connection: connection, inbox: inbox, reads: reads)
    }

    private func send(_ count: Int, to peer: Peer) throws {
        for index in 0..<count {
            let text = peer.channel.allocator.buffer(string: "PING\n\n\n\(index)")
            try peer.channel.writeInbound(WebSocketFrame(fin: true, opcode: .text, data: text))
        }
    }

    private func texts(_ events: [WebSocketInbox.Event]) -> Int {
        events.filter { if case .text = $0 { true } else { false } }.count
    }

    @Test func readingStopsAtTheLimitAndResumesOnceTheLoopTookTheMessages() throws {
        let peer = try peer()
        defer { _ = try? peer.channel.finish() }
        let limit = WebSocketConnection.unreadLimit

        try send(limit - 1, to: peer)
        peer.channel.read()
        #expect(peer.reads.reads == 1, "under the limit, the socket is read")

        try send(1, to: peer)
        peer.channel.read()
        peer.channel.read()
        #expect(peer.reads.reads == 1, "at the limit, the socket is no longer read")

        // What arrived meanwhile (already in NIO's hands) is kept, never dropped.
        try send(10, to: peer)
        let events = peer.inbox.take()
        #expect(texts(events) == limit + 10)

        peer.connection.taken(limit + 10)
        peer.channel.embeddedEventLoop.run()
        #expect(peer.reads.reads == 2, "once the loop took them, the read that waited goes through")

        peer.channel.read()
        #expect(peer.reads.reads == 3, "and reading goes on")
    }

    @Test func takingPartOfTheBacklogBelowTheLimitResumesReading() throws {
        let peer = try peer()
        defer { _ = try? peer.channel.finish() }
        let limit = WebSocketConnection.unreadLimit

        try send(limit + 5, to: peer)
        peer.channel.read()
        #expect(peer.reads.reads == 0)

        peer.connection.taken(5)
        peer.channel.embeddedEventLoop.run()
        #expect(peer.reads.reads == 0, "still at the limit: still not read")

        peer.connection.taken(1)
        peer.channel.embeddedEventLoop.run()
        #expect(peer.reads.reads == 1, "one under the limit: read again")
    }
}
