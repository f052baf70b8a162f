import FlowCore
import FlowWire

extension Coordinator {
    /// A subscription (`true`) or unsubscription on the events socket, as the XPUB reports it. A subscription to
    /// commands (`cmd/...`) or inspection events (`ins/...`, `inb/...`) is answered with a HEARTBEAT on that
    /// very topic: from then on the subscriber receives everything published there (a presenter's snapshot asked
    /// for after it leaves no gap; an inspector knows it misses nothing from then on).
    /// - Parameters:
    ///   - topic: the topic.
    ///   - subscribed: a subscription (`true`) or an unsubscription.
    ///   - address: where the subscriber connects from (ZeroMQ's `Peer-Address`), if known.
    ///   - applied: for a subscription, `false` when flowd refused it (with CURVE, a topic the key is not granted):
    ///     libzmq keeps it all the same, and it counts as unproven (`UnprovenSubscriptions`). For an
    ///     unsubscription, whether it names a key granted the topic (with CURVE, the end of a connection names
    ///     none, and an explicit one by a key not granted the topic changes nothing).
    ///   - now: flowd's clock (ms).
    public mutating func subscription(
        _ topic: [UInt8],
        subscribed: Bool,
        address: String? = nil,
        applied: Bool = true,
        now: Int64
    ) -> [Outgoing] {
        time.advance(to: now)
        turn.messages = []
        noteSubscription(topic, subscribed: subscribed, address: address, applied: applied)
        if subscribed {
            subscriptions.inspection.subscribed(topic, applied: applied)
            guard applied else { return turn.messages }
        } else {
            subscriptions.inspection.unsubscribed(topic, attributed: applied)
        }
        // The engine records every inspection event only while someone watches (fates always).
        engine.recordsInspectionEvents = subscriptions.inspection.isWatched
        let text = String(decoding: topic, as: UTF8.self)
        if subscribed, ["cmd/", "ins/", "inb/"].contains(where: text.hasPrefix) {
            // `cmd/<session>/<presenter>`, `ins/<session>/<kind>`, `inb/<session>/` or a prefix of them; a
            // session may hold slashes.
            let start = text.index(text.startIndex, offsetBy: 4)
            let end = text[start...].lastIndex(of: "/") ?? start
            let named = String(text[start..<end])
            let session = named.isEmpty || named == "-" ? nil : SessionID(named)
            publish(.heartbeat(Heartbeat()), topic: text, session: session)
        }
        return turn.messages
    }

    /// Publishes what is due at the end of a turn of the loop: the batched inspection events (EVENTS), one message
    /// per session, once the oldest has waited ``DaemonConfiguration/inspectionBatchDelay``. The server calls it
    /// once it has handled everything that was waiting (``nextWakeUp()`` says when it is due).
    public mutating func publishDueInspection(now: Int64) -> [Outgoing] {
        time.advance(to: now)
        turn.messages = []
        if let oldest = subscriptions.batches.oldest,
            time.wallNow - oldest >= setup.configuration.inspectionBatchDelay.milliseconds
        {
            for batch in subscriptions.batches.take() {
                publish(batch)
            }
        }
        return turn.messages
    }

    /// Publishes an inspection event, in each form someone listens to.
    mutating func inspect(_ kind: InspectionKind, session: SessionID?, _ fields: JSONObject) {
        guard subscriptions.inspection.isWatched else {
            return
        }
        inspect(kind, session: session) { members in
            for (key, value) in fields {
                members.member(named: key, value)
            }
        }
    }

    /// Publishes an inspection event, in each form someone listens to; `fields` writes its fields, straight into
    /// each form's text.
    mutating func inspect(_ kind: InspectionKind, session: SessionID?, fields: (inout JSONObjectWriter) -> Void) {
        if subscriptions.inspection.perEvent > 0 {
            // The EVENT body: `{"kind":...,"fields":...,"session":...}`.
            var body = JSONObjectWriter(capacity: 256)
            body.member("kind", kind.rawValue)
            body.member("fields", object: fields)
            if let session {
                body.member("session", session.rawValue)
            }
            publish(.event, body: body.finished(), topic: "ins/\(session?.rawValue ?? "-")/\(kind)", session: session)
        }
        if subscriptions.inspection.batched > 0,
            let full = subscriptions.batches.add(
                kind: kind.rawValue,
                at: time.wallNow,
                session: session,
                fields: fields
            )
        {
            publish(full)
        }
    }

    /// Adds a batch of commands, as published for a presenter (its COMMANDS body), to its session's EVENTS.
    mutating func inspectCommands(_ body: [UInt8], session: SessionID) {
        if subscriptions.inspection.batched > 0,
            let full = subscriptions.batches.add(
                kind: InspectionKind.commands.rawValue,
                at: time.wallNow,
                session: session,
                fieldsText: body
            )
        {
            publish(full)
        }
    }

    private mutating func publish(_ batch: PendingInspectionBatches.Body) {
        var batch = batch
        let topic = "inb/\(batch.session?.rawValue ?? "-")/"
        publish(.events, body: batch.finish(), topic: topic, session: batch.session)
    }
}
