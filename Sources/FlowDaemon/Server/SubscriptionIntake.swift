import Logging
import ZeroMQ

/// Takes the subscriptions the events socket reports, decides them (with CURVE, by the subscriber's grant), hands
/// them to the coordinator, and cuts the subscribers that send more than a subscriber does.
///
/// libzmq keeps every subscription of a connection, with no bound of its own, and it takes them into its tree of
/// topics ahead of flowd: each time flowd uses the socket, libzmq may take in a pipe's worth more (the events
/// socket's receive high-water mark, 10). So the connections that sent too much are looked for every hundred
/// subscriptions read, before the next ones, and cut (``SubscriberConnections``); the coordinator names, besides,
/// the address that holds the most topics nobody publishes (``UnprovenSubscriptions``).
struct SubscriptionIntake {
    /// Whether flowd applies each subscription itself (with CURVE: XPUB_MANUAL).
    let manual: Bool
    let monitors: [SocketMonitor]
    /// Which of the monitors watches the events socket.
    let eventsMonitor: Int
    let gate: ConnectionGate
    let logger: Logger
    private(set) var subscribers: SubscriberConnections
    /// The control socket's connections (followed with CURVE only, where silent ones are cut).
    var controls = ControlConnections()
    /// Whether a control connection ended since ``takeControlConnectionEnded()`` was last called.
    private var controlConnectionEnded = false

    init(manual: Bool, monitors: [SocketMonitor], eventsMonitor: Int, gate: ConnectionGate, logger: Logger) {
        self.manual = manual
        self.monitors = monitors
        self.eventsMonitor = eventsMonitor
        self.gate = gate
        self.logger = logger
        self.subscribers = SubscriberConnections(gate: gate)
    }

    /// Reads the monitors: connections counted by the gate, the events socket's followed here.
    mutating func readMonitors(now: Int64) throws {
        try gate.count(monitors) { index, event in
            if index == eventsMonitor {
                subscribers.note(event, now: now)
            } else {
                if manual {
                    controls.note(event, now: now)
                }
                if event.kind == .disconnected {
                    controlConnectionEnded = true
                }
            }
        }
    }

    /// Whether a control connection ended since the last call.
    mutating func takeControlConnectionEnded() -> Bool {
        defer { controlConnectionEnded = false }
        return controlConnectionEnded
    }

    /// Takes up to 1000 subscriptions waiting on `events` (the rest wait for the next turn, so that a subscriber
    /// that sends without end does not starve the loop); returns what the coordinator sends in answer.
    mutating func take(from events: Socket, into coordinator: inout Coordinator, now: Int64) throws -> [Outgoing] {
        var outgoing: [Outgoing] = []
        var taken = 0
        try cutHeavySenders(&coordinator, now: now)
        while taken < 1000, let message = try events.receive(dontWait: true) {
            taken += 1
            if taken % 100 == 0 {
                try cutHeavySenders(&coordinator, now: now)
            }
            guard let frame = message.frames.first, let kind = frame.first else { continue }
            let topic = Array(frame.dropFirst())
            var applied = true
            if manual {
                // Applied for this subscriber (the one just heard) only if its key is granted the topic. An
                // unsubscription is always passed on (it removes only what this subscriber has); it counts when
                // it names a granted key (attributed) or none (the end of a connection), never otherwise.
                let granted = coordinator.allowsSubscription(topic, userID: message.userID)
                if kind == 0 {
                    try events.setOption(.unsubscribe, topic)
                    guard granted || message.userID == nil else { continue }
                    applied = granted
                } else if granted {
                    try events.setOption(.subscribe, topic)
                } else {
                    coordinator.subscriptionRefused(topic, userID: message.userID)
                    applied = false
                }
            }
            outgoing += coordinator.subscription(
                topic,
                subscribed: kind == 1,
                address: message.peerAddress,
                applied: applied,
                now: now
            )
        }
        let toCut = coordinator.takeSubscribersToCut()
        if !toCut.isEmpty {
            try readMonitors(now: now)
        }
        for address in toCut {
            let cut = subscribers.cut(address: address, now: now)
            coordinator.unprovenSubscribersCut(cut.count, at: address, local: cut.local)
            if cut.count > 0 {
                logger.warning(
                    "cut \(cut.count) subscriber connection(s) at \(LogText.quoted(address)): they held the most subscriptions to topics flowd does not publish"
                )
            }
        }
        return outgoing
    }

    private mutating func cutHeavySenders(_ coordinator: inout Coordinator, now: Int64) throws {
        try readMonitors(now: now)
        for (address, count) in subscribers.cutHeavySenders(now: now) {
            coordinator.subscribersCut(count, address: address)
        }
    }
}
