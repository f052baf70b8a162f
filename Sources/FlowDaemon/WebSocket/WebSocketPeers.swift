import FlowWire

/// flowd's WebSocket peers as its loop sees them, on the loop's thread: the open connections by id, their
/// subscriptions, and what each is sent in the turn.
///
/// This is the bridge between the endpoint and the coordinator, and it holds no rule of the protocol: a message a
/// connection sends goes to ``Coordinator/receive(_:from:userID:overWebSocket:now:)`` exactly as a control
/// socket's does, under the connection's id; a subscription goes through the coordinator's grant check and
/// ``Coordinator/subscription(_:subscribed:address:applied:now:)`` as an events socket's does; what the coordinator
/// sends to a peer goes to its connection when it has one, and what it publishes goes to every connection
/// subscribed to a prefix of the topic (once each, as a SUB socket receives it). So the bounds, grants, fates, resync
/// and everything else are the coordinator's, the same for both transports.
final class WebSocketPeers {
    private let endpoint: WebSocketEndpoint
    /// The open connections, by serial.
    private var connections: [Int: WebSocketConnection] = [:]
    /// The connection that holds each id (the last one opened under it).
    private var byID: [String: WebSocketConnection] = [:]
    /// Each connection's subscriptions, in order.
    private var subscriptions: [Int: [[UInt8]]] = [:]
    /// What each connection is sent in this turn, and its bytes.
    private var pending: [Int: [[UInt8]]] = [:]
    private var pendingBytes: [Int: Int] = [:]

    /// The most subscriptions one connection holds; one more closes it (1008).
    static let maxSubscriptions = 64
    /// The longest topic a subscription names: a family, the longest session id and name, and slashes.
    static let maxTopicLength = 4 + 2 * WireLimits.maxIdentifierLength + 1

    init(endpoint: WebSocketEndpoint) {
        self.endpoint = endpoint
    }

    /// Where the endpoint listens.
    var address: MetricsAddress { endpoint.address }

    /// The descriptor that becomes readable when connections did something (the loop polls it).
    var wakeDescriptor: Int32 { endpoint.inbox.wake.fileDescriptor }

    /// Takes what the connections did since the last call, in order; returns what the coordinator sends in answer.
    func take(into coordinator: inout Coordinator, now: Int64) -> [Outgoing] {
        var outgoing: [Outgoing] = []
        var taken: [Int: (WebSocketConnection, Int)] = [:]
        for event in endpoint.inbox.take() {
            switch event {
            case .opened(let connection):
                opened(connection, &coordinator, &outgoing, now: now)
            case .closed(let connection):
                closed(connection, &coordinator, &outgoing, now: now)
            case .text(let connection, let text):
                taken[connection.serial, default: (connection, 0)].1 += 1
                guard connections[connection.serial] != nil else { continue }
                received(text, from: connection, &coordinator, &outgoing, now: now)
            }
        }
        for (connection, count) in taken.values {
            connection.taken(count)
        }
        return outgoing
    }

    private func opened(
        _ connection: WebSocketConnection,
        _ coordinator: inout Coordinator,
        _ outgoing: inout [Outgoing],
        now: Int64
    ) {
        connections[connection.serial] = connection
        coordinator.webSocketConnectionOpened(connection.id)
        // A new connection under an id takes it over (a page reloaded): the old one is closed.
        if let previous = byID.updateValue(connection, forKey: connection.id) {
            previous.close(code: WebSocketCloseCode.replaced, reason: "another connection took this id")
            forget(previous, &coordinator, &outgoing, now: now)
        }
    }

    private func closed(
        _ connection: WebSocketConnection,
        _ coordinator: inout Coordinator,
        _ outgoing: inout [Outgoing],
        now: Int64
    ) {
        guard connections[connection.serial] != nil else { return }
        forget(connection, &coordinator, &outgoing, now: now)
        if byID[connection.id] === connection {
            byID[connection.id] = nil
            coordinator.webSocketConnectionClosed(connection.id)
        }
    }

    /// Forgets a connection and ends its subscriptions, as the end of a ZeroMQ connection does.
    private func forget(
        _ connection: WebSocketConnection,
        _ coordinator: inout Coordinator,
        _ outgoing: inout [Outgoing],
        now: Int64
    ) {
        connections[connection.serial] = nil
        pending[connection.serial] = nil
        pendingBytes[connection.serial] = nil
        for topic in subscriptions.removeValue(forKey: connection.serial) ?? [] {
            outgoing += coordinator.subscription(topic, subscribed: false, address: place(connection), now: now)
        }
    }

    private func received(
        _ text: [UInt8],
        from connection: WebSocketConnection,
        _ coordinator: inout Coordinator,
        _ outgoing: inout [Outgoing],
        now: Int64
    ) {
        switch WebSocketText.inbound(text) {
        case .message(let frames):
            let reception = coordinator.receive(
                frames,
                from: connection.id,
                userID: connection.userID,
                overWebSocket: true,
                now: now
            )
            outgoing += reception.messages
            if reception.impostor != nil {
                // Its token was withdrawn: the refusal goes out first (this turn's delivery), then it is closed.
                closeAfterTurn.append(
                    (connection, WebSocketCloseCode.unauthorized, "flowd no longer accepts this token")
                )
            }
        case .subscribe(let topic):
            var topics = subscriptions[connection.serial] ?? []
            guard topics.count < Self.maxSubscriptions, topic.count <= Self.maxTopicLength else {
                let reason =
                    topic.count > Self.maxTopicLength
                    ? "a topic is at most \(Self.maxTopicLength) bytes"
                    : "at most \(Self.maxSubscriptions) subscriptions per connection"
                coordinator.subscribersCut(1, address: place(connection))
                connection.close(code: 1008, reason: reason)
                forget(connection, &coordinator, &outgoing, now: now)
                return
            }
            let granted = coordinator.allowsSubscription(topic, userID: connection.userID, overWebSocket: true)
            if granted {
                topics.append(topic)
                subscriptions[connection.serial] = topics
            } else {
                coordinator.subscriptionRefused(topic, userID: connection.userID)
            }
            outgoing += coordinator.subscription(
                topic,
                subscribed: true,
                address: place(connection),
                applied: granted,
                now: now
            )
        case .unsubscribe(let topic):
            guard var topics = subscriptions[connection.serial], let index = topics.firstIndex(of: topic) else {
                return
            }
            topics.remove(at: index)
            subscriptions[connection.serial] = topics
            outgoing += coordinator.subscription(topic, subscribed: false, address: place(connection), now: now)
        }
    }

    /// Connections to close once this turn's messages are handed to them.
    private var closeAfterTurn: [(WebSocketConnection, UInt16, String)] = []

    /// Where a connection is, as the coordinator's subscription bounds name it.
    private func place(_ connection: WebSocketConnection) -> String {
        "ws:" + connection.address
    }

    /// Whether `address` (from a turn's ``TurnEffects/subscribersToCut``) is a WebSocket connection's; if so, the
    /// connections there are closed.
    func cut(address: String) -> Bool {
        guard address.hasPrefix("ws:") else { return false }
        for connection in connections.values where place(connection) == address {
            connection.close(code: 1008, reason: "too many subscriptions to topics flowd does not publish")
        }
        return true
    }

    /// Queues a message for peer `id` if it is a WebSocket peer; returns `nil` if it is not, else whether the message
    /// fits its send queue (a message that does not is dropped).
    func send(_ frames: [[UInt8]], to id: String) -> Bool? {
        guard let connection = byID[id] else { return nil }
        return queue(WebSocketText.message(frames), for: connection)
    }

    /// Queues a published message for every connection subscribed to a prefix of `topic`.
    func publish(_ frames: [[UInt8]], topic: String) {
        guard !subscriptions.isEmpty else { return }
        let topic = Array(topic.utf8)
        var text: [UInt8]?
        for (serial, topics) in subscriptions where topics.contains(where: { topic.starts(with: $0) }) {
            guard let connection = connections[serial] else { continue }
            if text == nil {
                text = WebSocketText.published(topic: topic, frames)
            }
            _ = queue(text!, for: connection)
        }
    }

    private func queue(_ text: [UInt8], for connection: WebSocketConnection) -> Bool {
        let queued = pendingBytes[connection.serial, default: 0] + text.count
        guard connection.fits(queued) else { return false }
        pending[connection.serial, default: []].append(text)
        pendingBytes[connection.serial] = queued
        return true
    }

    /// Hands each connection what it was sent in the turn, one write each; then closes those to be closed.
    func flush() {
        for (serial, texts) in pending {
            connections[serial]?.send(texts)
        }
        pending.removeAll(keepingCapacity: true)
        pendingBytes.removeAll(keepingCapacity: true)
        for (connection, code, reason) in closeAfterTurn {
            connection.close(code: code, reason: reason)
        }
        closeAfterTurn.removeAll()
    }

    /// Closes the connections of `ids` (their tokens were withdrawn by a reload).
    func close(ids: [String], code: UInt16, reason: String) {
        for id in ids {
            byID[id]?.close(code: code, reason: reason)
        }
    }

    /// Closes every connection (flowd stops) and the endpoint.
    func stop() {
        for connection in connections.values {
            connection.close(code: 1001, reason: "flowd is stopping")
        }
        endpoint.stop()
    }
}
