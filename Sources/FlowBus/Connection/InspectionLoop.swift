import FlowWire
import Foundation
import ZeroMQ

/// The thread behind an ``InspectionStream``: one SUB socket and its monitor. It waits for flowd's HEARTBEAT on
/// every subscribed topic (flowd's confirmation) before the stream is handed out, and again after each
/// reconnection.
final class InspectionLoop {
    private let topics: [String]
    /// The one session watched: `inb/kiosk/` also matches session `kiosk/7`'s topics, which are skipped.
    private let session: String?
    /// Whether the command batches in EVENTS (entries of kind `commands`) are handed over.
    private let commands: Bool
    private let options: ClientOptions
    private let continuation: AsyncStream<[Inspected]>.Continuation
    private var confirmed: PendingReply<Void>?
    /// Items left out since the reader last took a burst (the stream was full).
    private var skipped = 0
    private let subscriber: Socket
    private let monitor: SocketMonitor
    private let codec = WireCodec(maxBodySize: Int.max)
    private let clock = ContinuousClock()
    private var unconfirmed: Set<String>
    private var lost = false

    init?(
        topics: [String],
        session: String?,
        commands: Bool,
        options: ClientOptions,
        continuation: AsyncStream<[Inspected]>.Continuation,
        confirmed: PendingReply<Void>
    ) {
        self.topics = topics
        self.session = session
        self.commands = commands
        self.options = options
        self.continuation = continuation
        self.confirmed = confirmed
        unconfirmed = Set(topics)
        do {
            let context = try BusConnection.context.get()
            subscriber = try Socket(.subscriber, context: context)
            // A watcher that falls behind loses messages at flowd's side; a deep queue makes that rare.
            try subscriber.setOption(.receiveHighWaterMark, 100_000)
            try subscriber.setOption(.reconnectInterval, options.reconnectInterval)
            try subscriber.setOption(.reconnectIntervalMax, options.reconnectIntervalMax)
            if let curve = options.curve {
                try subscriber.makeCurveClient(keyPair: curve.keys, serverKey: curve.serverKey)
            }
            for topic in topics {
                try subscriber.subscribe(topic)
            }
            monitor = try subscriber.monitor()
            try subscriber.connect(options.endpoints.events)
        } catch {
            confirmed.resume(
                with: .failure(FlowBusError(.invalidOptions, "cannot connect to \(options.endpoints.events): \(error)"))
            )
            continuation.finish()
            return nil
        }
    }

    /// Runs until `stopped` says so (the stream was closed or released).
    func run(until stopped: () -> Bool) {
        let deadline = clock.now + options.connectTimeout
        var poller = Poller()
        let subscriberIndex = poller.register(subscriber)
        let monitorIndex = poller.register(monitor.socket)
        while !stopped() {
            if let confirmed, clock.now >= deadline {
                confirmed.resume(
                    with: .failure(
                        FlowBusError(
                            .unreachable,
                            "flowd did not confirm the subscription at \(options.endpoints.events) within \(options.connectTimeout)"
                        )
                    )
                )
                break
            }
            guard let ready = try? poller.poll(timeout: .milliseconds(50)) else { break }
            for (index, _) in ready {
                if index == subscriberIndex {
                    receive()
                } else if index == monitorIndex {
                    watchConnection()
                }
            }
        }
        confirmed?.resume(with: .failure(FlowBusError(.closed, "the stream is closed")))
        // Closed: what had already arrived is still handed over (a recorder stopped by Ctrl-C keeps it).
        if confirmed == nil {
            receive()
        }
        continuation.finish()
    }

    /// Takes everything waiting on the socket and hands it over in batches (of at most 256 items, so that a
    /// flood is handed over as it comes).
    private func receive() {
        var batch: [Inspected] = []
        defer {
            if !batch.isEmpty { hand(batch) }
        }
        while let message = try? subscriber.receive(dontWait: true) {
            if batch.count >= 256 {
                hand(batch)
                batch = []
            }
            let frames = message.frames
            guard let topicFrame = frames.first, let envelope = try? codec.decode(Array(frames.dropFirst())) else {
                continue
            }
            switch envelope.message {
            case .events(let events) where session == nil || events.session == session:
                unpack(events, header: envelope.header, into: &batch)
            case .heartbeat:
                if confirm(String(decoding: topicFrame, as: UTF8.self)) {
                    batch.append(.connectionRestored)
                }
            default:
                break
            }
        }
    }

    /// Hands a burst to the reader, first saying how many items were left out since the last one it took: the
    /// stream holds at most ``InspectionStream/bufferLimit`` bursts for a reader that does not keep up.
    private func hand(_ batch: [Inspected]) {
        let burst = skipped > 0 ? [.skipped(skipped)] + batch : batch
        if case .dropped = continuation.yield(burst) {
            skipped += batch.count
        } else {
            skipped = 0
        }
    }

    /// The items of one EVENTS message, each with the message's header but its own time as `sentAt` (when flowd
    /// produced it).
    private func unpack(_ events: InspectionBatch, header: Header, into batch: inout [Inspected]) {
        var itemHeader = header
        itemHeader.session = events.session
        for entry in events.events where commands || entry.kind != InspectionKind.commands.rawValue {
            itemHeader.sentAt = entry.at
            batch.append(
                .event(InspectionEvent(kind: entry.kind, session: events.session, fields: entry.fields), itemHeader)
            )
        }
    }

    /// flowd's HEARTBEAT on a subscribed topic: from now on that topic's messages all arrive. Returns whether
    /// that restores a lost connection.
    private func confirm(_ topic: String) -> Bool {
        guard unconfirmed.remove(topic) != nil, unconfirmed.isEmpty else { return false }
        if let confirmed {
            confirmed.resume(with: .success(()))
            self.confirmed = nil
        } else if lost {
            lost = false
            return true
        }
        return false
    }

    private func watchConnection() {
        while let event = try? monitor.next() {
            if event.kind == .disconnected, confirmed == nil, !lost {
                lost = true
                unconfirmed = Set(topics)
                hand([.connectionLost])
            }
        }
    }
}
