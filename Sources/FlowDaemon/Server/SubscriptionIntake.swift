import Logging
import ZeroMQ

/// Takes the subscriptions the events socket reports, decides them (with CURVE, by the subscriber's grant), hands
/// them to the coordinator, and has the subscribers that send more than a subscriber does cut.
///
/// libzmq keeps every subscription of a connection, with no bound of its own, and it takes them into its tree of
/// topics ahead of flowd, each time flowd uses the socket. So the connections are watched from a thread of their own
/// (``SubscriberWatch``), which cuts one that sent too much within milliseconds; the coordinator names, besides, the
/// address that holds the most topics nobody publishes (``UnprovenSubscriptions``), which the watch cuts too.
/// The control socket's monitor is read here, on the loop's thread.
struct SubscriptionIntake {
    /// Whether flowd applies each subscription itself (with CURVE: XPUB_MANUAL).
    let manual: Bool
    /// The control socket's monitor.
    let controlMonitor: SocketMonitor
    let watch: SubscriberWatch
    let gate: ConnectionGate
    let logger: Logger
    /// The control socket's connections (followed with CURVE only, where silent ones are cut).
    var controls = ControlConnections()
    /// Whether a control connection ended since ``takeControlConnectionEnded()`` was last called.
    private var controlConnectionEnded = false

    init(manual: Bool, controlMonitor: SocketMonitor, watch: SubscriberWatch, gate: ConnectionGate, logger: Logger) {
        self.manual = manual
        self.controlMonitor = controlMonitor
        self.watch = watch
        self.gate = gate
        self.logger = logger
    }

    /// Reads the control socket's monitor: connections counted by the gate, and followed here with CURVE.
    mutating func readMonitors(now: Int64) throws {
        try gate.count([controlMonitor]) { _, event in
            if manual {
                controls.note(event, now: now)
            }
            if event.kind == .disconnected {
                controlConnectionEnded = true
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
        watch.subscriptionsArrived()
        while taken < 1000, let message = try events.receive(dontWait: true) {
            taken += 1
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
        report(into: &coordinator)
        return outgoing
    }

    /// Counts and logs what the watch cut since the last call.
    func report(into coordinator: inout Coordinator) {
        for report in watch.takeReports() {
            switch report {
            case .heavy(let address, let count):
                coordinator.subscribersCut(count, address: address)
            case .unproven(let address, let count, let local):
                coordinator.unprovenSubscribersCut(count, at: address, local: local)
                if count > 0 {
                    logger.warning(
                        "cut \(count) subscriber connection(s) at \(LogText.quoted(address)): they held the most subscriptions to topics flowd does not publish"
                    )
                }
            }
        }
    }
}
