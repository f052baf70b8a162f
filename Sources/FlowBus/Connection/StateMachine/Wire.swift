import FlowWire

/// What the client numbers and measures its messages with: their ids, flowd's size limit and the codec.
struct Wire {
    let codec = WireCodec()
    /// The id of the last message sent, increasing: flowd's answers name it.
    var lastMessageID: UInt64 = 0
    /// The largest body flowd takes (its WELCOME says).
    var maxMessageSize = 1 << 20

    /// The next message, numbered; `nil` when it is larger than flowd takes (its number is spent all the same).
    mutating func next(_ type: MessageType, body: [UInt8], session: String?, sender: String) -> OutgoingMessage? {
        lastMessageID += 1
        let message = OutgoingMessage(id: lastMessageID, session: session, type: type, body: body)
        let header = message.frames(codec, sender: sender, sentAt: OutgoingMessage.widestSentAt)[2]
        guard header.count <= codec.maxHeaderSize, body.count <= maxMessageSize else { return nil }
        return message
    }

    /// Why a message was not sent.
    var tooLarge: FlowBusError {
        FlowBusError(.tooLarge, "the message is larger than flowd's limit of \(maxMessageSize) bytes; it was not sent")
    }
}
