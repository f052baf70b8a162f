import FlowWire

/// What a turn of the coordinator sends: its messages in order, those of them that describe no state (they leave
/// at once), the connection to cut, and the numbering of flowd's messages.
struct TurnOutput: Sendable {
    /// The turn's messages, in order.
    var messages: [Outgoing] = []
    /// Messages of the turn that describe no state (heartbeats, `storeUnavailable`): they leave at the end of the
    /// turn even while earlier turns' answers wait for their writes (``TurnEffects/immediate``).
    var immediate: [Outgoing] = []
    /// With CURVE: a connection that spoke under an id not its key's in the message just received (the server cuts
    /// it, and refuses the key a while if the id was another key's).
    var impostor: Impostor?
    /// The id of flowd's last message (ids increase across runs: see ``Coordinator/numberMessages(from:)``).
    private(set) var lastMessageID: UInt64

    init(firstMessageID: UInt64) {
        lastMessageID = firstMessageID
    }

    /// A turn begins: nothing sent yet (room for a step's COMMANDS and STEP_ACK, in one allocation).
    mutating func begin() {
        messages = []
        messages.reserveCapacity(4)
        impostor = nil
    }

    /// The id of the next message.
    mutating func nextMessageID() -> UInt64 {
        lastMessageID += 1
        return lastMessageID
    }

    /// Numbers messages from `id` on, unless they are numbered past it already.
    mutating func numberFrom(_ id: UInt64) {
        lastMessageID = max(lastMessageID, id)
    }

    /// Adds a message; `immediate`: it describes no state.
    mutating func append(_ outgoing: Outgoing, immediate: Bool) {
        messages.append(outgoing)
        if immediate {
            self.immediate.append(outgoing)
        }
    }
}
