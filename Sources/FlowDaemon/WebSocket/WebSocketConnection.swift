import NIOCore
import NIOWebSocket
import Synchronization

/// One WebSocket peer's connection, as the loop sees it: its id (the URL's), its token's id, where it comes from,
/// and how to write to it. Made on the endpoint's thread when the handshake is done; every method is safe from
/// any thread (the writes go to the connection's event loop).
///
/// Both ways are bounded. What it sent waits for the loop, at most ``unreadLimit`` messages: beyond, flowd stops
/// reading it (its socket fills, and then its sender waits), as a ZeroMQ socket at its high-water mark. What flowd
/// sends it waits for the network, at most ``sendQueueBytes``: beyond, it is dropped as ZeroMQ drops what a
/// subscriber does not read (a reply is counted; a presenter sees the gap in its command sequence and resyncs).
final class WebSocketConnection: Sendable {
    /// Numbered as connections come: two connections under one id are told apart.
    let serial: Int
    /// The peer's id (the URL's `id`): its routing id.
    let id: String
    /// Its token's id; `nil` without tokens.
    let userID: String?
    /// Where it comes from (`address:port`).
    let address: String
    /// The most bytes queued for it before what flowd sends it is dropped.
    let sendQueueBytes: Int
    private let channel: any Channel
    private let unread = Atomic<Int>(0)
    private let queued = Atomic<Int>(0)
    /// Resumes reading once the loop took what it sent (set by its handler).
    private let resume = Mutex<(@Sendable () -> Void)?>(nil)

    /// The most messages of one connection waiting for the loop before flowd stops reading it.
    static let unreadLimit = 256

    init(serial: Int, id: String, userID: String?, address: String, channel: any Channel, sendQueueBytes: Int) {
        self.serial = serial
        self.id = id
        self.userID = userID
        self.address = address
        self.channel = channel
        self.sendQueueBytes = sendQueueBytes
    }

    /// A message arrived for the loop; returns whether the connection is to stop being read.
    func arrived() -> Bool {
        unread.add(1, ordering: .relaxed).newValue >= Self.unreadLimit
    }

    /// The loop took `count` of its messages: reading resumes if it had stopped.
    func taken(_ count: Int) {
        let after = unread.subtract(count, ordering: .relaxed).newValue
        if after < Self.unreadLimit, after + count >= Self.unreadLimit, let resume = resume.withLock({ $0 }) {
            resume()
        }
    }

    /// Sets what resumes reading (`nil` once the connection is gone).
    func onResume(_ action: (@Sendable () -> Void)?) {
        resume.withLock { $0 = action }
    }

    /// Whether `bytes` more fit in its send queue.
    func fits(_ bytes: Int) -> Bool {
        queued.load(ordering: .relaxed) + bytes <= sendQueueBytes && channel.isWritable
    }

    /// Writes `texts`, a text message each, and flushes once.
    func send(_ texts: [[UInt8]]) {
        guard !texts.isEmpty else { return }
        let total = texts.reduce(0) { $0 + $1.count }
        queued.add(total, ordering: .relaxed)
        let channel = channel
        channel.eventLoop.execute { [self] in
            for text in texts {
                let frame = WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(bytes: text))
                channel.write(frame, promise: nil)
            }
            channel.flush()
            queued.subtract(total, ordering: .relaxed)
        }
    }

    /// Closes it with `code` and `reason` (at most 123 bytes, as a close frame holds).
    func close(code: UInt16, reason: String) {
        let channel = channel
        channel.eventLoop.execute {
            WebSocketConnection.close(channel, code: code, reason: reason)
        }
    }

    /// Writes a close frame and closes `channel` once it is out (on its event loop), or after a second whatever
    /// happened to it: a peer that does not read never takes the frame, and its connection is closed all the same.
    static func close(_ channel: any Channel, code: UInt16, reason: String) {
        var data = channel.allocator.buffer(capacity: 125)
        data.write(webSocketErrorCode: WebSocketErrorCode(codeNumber: Int(code)))
        data.writeString(String(decoding: reason.utf8.prefix(123), as: UTF8.self))
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
        channel.writeAndFlush(frame).whenComplete { _ in
            channel.close(promise: nil)
        }
        channel.eventLoop.scheduleTask(in: closeGrace) {
            channel.close(promise: nil)
        }
    }

    /// How long a close frame may take to go out before the connection is closed without it.
    static let closeGrace = TimeAmount.seconds(1)
}
