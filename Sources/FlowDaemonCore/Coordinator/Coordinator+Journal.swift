import FlowCore
import FlowStore
import FlowWire

extension Coordinator {
    /// Keeps an input that changed a session, to be written before anything it caused leaves flowd. Nothing is
    /// kept by an ephemeral flowd, or while the journal is replayed. `known`: the caller has just seen that the
    /// session exists (a numbered step's), and it is not looked up again.
    /// `stepBody`: the body of the STEP message a `.step` input came in, kept as it is in the entry, and
    /// `journalSender` the first members of its entry.
    mutating func record(
        _ input: JournalInput,
        session: SessionID,
        known: Bool = false,
        stepBody: [UInt8]? = nil,
        journalSender: JournalSenderText? = nil
    ) {
        // A session that does not exist keeps nothing (an inspector naming an unknown one, a peer of an ended one):
        // what was said to it changes no session, and its entries would never be removed.
        guard store.journal.isRecording, known || engine.hasSession(session) || input.startsSession else { return }
        let entry = JournalEntry(session: session, time: engine.now.milliseconds, wall: time.wallNow, input: input)
        do {
            store.journal.add(
                try entry.encoded(stepBody: stepBody, sender: journalSender),
                session: session,
                snapshotEvery: setup.configuration.snapshotEvery
            )
        } catch {
            // Every part of an entry is plain data: this cannot fail, and if it did the session is written whole.
            setup.logger.error("cannot encode a journal entry of \(session): \(error)")
            store.journal.snapshotDue.insert(session)
        }
    }

    /// What this turn has to write, taken (the next turn starts empty): the journal entries, the snapshots due —
    /// sessions with ``DaemonConfiguration/snapshotEvery`` entries, and at each ``DaemonConfiguration/snapshotInterval``
    /// (or when `everything`: a graceful stop) sessions with `entriesWorthASnapshot` — the sessions that ended,
    /// and flowd's clock.
    public mutating func takeStoreGroup(everything: Bool = false) -> StoreGroup {
        guard store.journal.isEnabled else { return StoreGroup() }
        if everything || now - store.journal.lastPeriodicSnapshot >= setup.configuration.snapshotInterval.milliseconds {
            store.journal.lastPeriodicSnapshot = now
            // Only where replaying the entries would take longer than reading the session whole.
            store.journal.snapshotDue.formUnion(
                store.journal.tails.filter { $0.value.entries >= Self.entriesWorthASnapshot }.keys
            )
        }
        var group = StoreGroup()
        swap(&group.entries, &store.journal.entries)
        group.removed = store.journal.removed.map(\.rawValue).sorted()
        store.journal.removed = []
        for session in store.journal.snapshotDue.sorted() {
            guard let bytes = snapshotBytes(of: session) else { continue }
            group.snapshots.append(SnapshotRecord(session: session.rawValue, bytes: bytes))
            store.journal.noteSnapshot(of: session, bytes: bytes.count)
        }
        store.journal.snapshotDue = []
        if !group.snapshots.isEmpty {
            store.journal.lastSnapshotWall = time.wallNow
        }
        swap(&group.metadata, &store.journal.metadata)
        // The clock is written with snapshots, and at most once a second otherwise (a restart also takes the time of
        // the last entry): a row less to write in the group of every step. While a session waits for a deadline it is
        // written once a second even when nothing else is, so that a restart does not give the wait back.
        let clockDue = store.journal.lastClockWrite.map { now - $0 >= Self.clockWriteInterval } ?? true
        if (!group.isEmpty || (clockDue && engine.nextDeadline != nil))
            && (!group.snapshots.isEmpty || everything || clockDue)
        {
            group.metadata[StoreKeys.clock] = String(now)
            store.journal.lastClockWrite = now
        }
        return group
    }

    /// How many journal entries of a session make a periodic (or final) snapshot worth writing: reading a snapshot
    /// back costs about as much as replaying this many entries (measured with `flowbench durability`).
    static let entriesWorthASnapshot = 8

    /// How often flowd's clock is written when nothing else asks for it (milliseconds).
    static let clockWriteInterval: Int64 = 1000

    /// Journal entries waiting for the end of the turn (or of the group of turns) to be written.
    public var pendingJournalEntries: Int { store.journal.entries.count }

    /// Sets metadata to be written with the next group.
    public mutating func setStoreMetadata(_ key: String, _ value: String) {
        store.journal.metadata[key] = value
    }

    /// Marks every session to be written whole with the next group.
    mutating func snapshotEverySession() {
        store.journal.snapshotDue.formUnion(engine.sessionIDs)
    }

    /// A session's record, encoded; `nil` when the session is gone.
    private func snapshotBytes(of session: SessionID) -> [UInt8]? {
        guard let record = sessionRecord(of: session) else { return nil }
        do {
            return try FlowJSON.encode(record)
        } catch {
            setup.logger.error("cannot encode the snapshot of \(session): \(error)")
            return nil
        }
    }

    /// Everything flowd keeps of a session.
    func sessionRecord(of session: SessionID) -> SessionRecord? {
        guard let snapshot = try? engine.snapshot(of: session) else { return nil }
        let senders = acknowledgements.steppers.records(in: session)
            .sorted { ($0.key.role.rawValue, $0.key.name) < ($1.key.role.rawValue, $1.key.name) }
            .map { key, record in
                StoredSender(
                    role: key.role,
                    name: key.name,
                    lastSequence: record.lastSequence,
                    // The last `rememberedAcknowledgements` (fewer after a reload lowered it, until new steps come).
                    outcomes: record.acknowledgements.inOrder.suffix(setup.configuration.rememberedAcknowledgements).map
                    {
                        StoredOutcome(sequence: $0.sequence, outcome: $0.outcome)
                    },
                    pending: record.pending.sorted()
                )
            }
        return SessionRecord(
            engine: snapshot,
            commandSequences: Dictionary(
                uniqueKeysWithValues: (ledger.commandSequences[session] ?? [:]).map { ($0.key.rawValue, $0.value) }
            ),
            senders: senders,
            waiting: acknowledgements.waiting(in: session).map {
                StoredWaitingStep(token: $0.token, acknowledgement: $0.acknowledgement)
            },
            drops: Array(acknowledgements.drops(in: session)),
            activity: ledger.activity[session] ?? SessionActivity(createdAt: time.wallNow, lastActivity: time.wallNow)
        )
    }
}

/// The metadata keys flowd writes.
public enum StoreKeys {
    /// flowd's clock when a group was written (milliseconds; with snapshots, and at most once a second otherwise): a
    /// restarted flowd continues from it, or from the last journal entry's time when that is later.
    public static let clock = "clock"
    /// The epoch of the state (``Coordinator/epoch``).
    public static let epoch = "epoch"
    /// The text of the flows file the journal was written with: replayed with the same flows.
    public static let flows = "flows"
    /// Where that flows file was.
    public static let flowsFile = "flowsFile"
}

extension Coordinator {
    /// The `store` query: where the sessions are kept, how much is there, and how fast it is written.
    func storeReport() -> JSONValue {
        guard setup.configuration.durable, let statistics = store.statistics else {
            return ["durable": false]
        }
        return [
            "durable": true,
            "location": .string(statistics.location),
            "durability": .string(statistics.durability),
            "bytes": .int(Int(statistics.bytes)),
            "snapshots": .int(statistics.snapshots),
            "journalEntries": .int(statistics.journalEntries),
            "groupsWritten": .int(statistics.groups),
            "transactions": .int(statistics.transactions),
            "groupsWaiting": .int(store.groupsWaiting),
            "snapshotsWritten": .int(statistics.snapshotsWritten),
            "lastSnapshotAt": store.journal.lastSnapshotWall.map { .int(Int($0)) } ?? .null,
            "writeMicroseconds": [
                "last": .int(statistics.lastWriteMicroseconds),
                "mean": .int(statistics.meanWriteMicroseconds),
                "max": .int(statistics.maxWriteMicroseconds),
            ],
        ]
    }
}
