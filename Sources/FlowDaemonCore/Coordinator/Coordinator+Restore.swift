import FlowCore
import FlowSpec
import FlowStore
import FlowWire
import Logging

/// What a restore found, for flowd's log.
public struct RestoreSummary: Sendable, Hashable {
    /// Sessions brought back.
    public var sessions = 0
    /// Of them, from a snapshot.
    public var snapshots = 0
    /// Journal entries replayed after the snapshots.
    public var entries = 0
}

extension Coordinator {
    /// A coordinator with the state a store holds: every session's snapshot is resumed exactly (deadlines
    /// included), then the journal entries written after them are replayed, in the order they were written, through
    /// the same code that applied them the first time. The flows must be those the journal was written with.
    /// - Parameters:
    ///   - stored: what the store holds: snapshots and the journal written after them.
    ///   - specification: the flows the journal was written with.
    ///   - configuration: flowd's settings.
    ///   - epoch: this run's epoch (presenters resync when it changes).
    ///   - now: flowd's clock; it must not be behind the stored clock.
    ///   - logger: where the restore is told.
    /// - Throws: `StoreError` `.invalidRecord` naming the session, when a record cannot be read or replayed.
    public static func restoring(
        _ stored: StoredState,
        specification: FlowSpecification,
        configuration: DaemonConfiguration,
        epoch: String,
        now: Int64,
        logger: Logger
    ) throws(StoreError) -> (Coordinator, RestoreSummary) {
        var coordinator = Coordinator(
            specification: specification,
            configuration: configuration,
            epoch: epoch,
            now: now,
            logger: logger
        )
        // The engine starts at the origin: each replayed entry moves it to the time the entry was applied.
        coordinator.engine = FlowEngine(registry: specification.registry, options: configuration.engine, now: .zero)
        coordinator.engine.recordsInspectionEvents = false
        var summary = RestoreSummary()
        coordinator.store.journal.isReplaying = true
        for stored in stored.snapshots {
            let record: SessionRecord
            do {
                record = try FlowJSON.decode(SessionRecord.self, from: stored.bytes)
                guard record.version <= SessionRecord.currentVersion else {
                    throw StoreError(
                        .newerFormat,
                        "session \(stored.session) was written by a newer FlowBus (record version \(record.version))"
                    )
                }
                try coordinator.resume(record)
                coordinator.store.journal.snapshotSizes[record.engine.session] = stored.bytes.count
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError(
                    .invalidRecord,
                    "the snapshot of session \(stored.session) cannot be restored: \(error)"
                )
            }
            summary.snapshots += 1
        }
        for stored in stored.entries {
            for bytes in stored.entryBytes {
                do {
                    let entry = try JournalEntry.decoded(from: bytes)
                    try coordinator.replay(entry)
                    coordinator.store.journal.noteEntry(of: entry.session, bytes: bytes.count)
                } catch {
                    throw StoreError(
                        .invalidRecord,
                        "a journal entry of session \(stored.session) cannot be replayed: \(error)"
                    )
                }
                summary.entries += 1
            }
        }
        coordinator.store.journal.isReplaying = false
        coordinator.turn.messages = []
        coordinator.subscriptions.batches = PendingInspectionBatches()
        // An inspector's numbering stays until it leaves: one that comes back after the restart resends what waited
        // for its fate, and must not have it applied twice.
        coordinator.time.restart(at: max(now, coordinator.engine.now.milliseconds))
        coordinator.ledger.restart(at: coordinator.now)
        coordinator.store.journal.lastPeriodicSnapshot = coordinator.now
        summary.sessions = coordinator.engine.sessionCount
        coordinator.counters = Counters()
        coordinator.counters.sessionsRestored = summary.sessions
        return (coordinator, summary)
    }

    /// Brings back one session from its record, exactly.
    mutating func resume(_ record: SessionRecord) throws {
        let session = record.engine.session
        try engine.resume(record.engine)
        ledger.restore(session, activity: record.activity, commandSequences: record.commandSequences)
        for sender in record.senders {
            var stepper = StepperRecord()
            stepper.lastSequence = sender.lastSequence
            stepper.acknowledgements = RecentOutcomes(sender.outcomes.map { ($0.sequence, $0.outcome) })
            stepper.pending = Set(sender.pending)
            acknowledgements.steppers[StepperKey(session: session, role: sender.role, name: sender.name)] = stepper
        }
        acknowledgements.restore(
            waiting: record.waiting.map { ($0.token, $0.acknowledgement) },
            drops: record.drops,
            in: session
        )
    }

    /// Applies a journal entry again, as it was applied the first time; what it would send is dropped.
    mutating func replay(_ entry: JournalEntry) throws {
        time.replay(at: entry.time, wall: entry.wall)
        let session = entry.session
        // Deadlines that fell before the entry fire first, as they did (the tick that fired them is in the journal).
        apply(engine.advanceTime(to: EngineTime(milliseconds: entry.time)))
        switch entry.input {
        case .sessionStarted:
            try startSession(session)
        case .step(let key, let sequence, let step, let source, let sender):
            acknowledgements.steppers[key, default: StepperRecord()].take(sequence)
            submitStep(
                step,
                from: source,
                sequence: sequence,
                of: key,
                sender: sender,
                parameterProblem: setup.specification.parameterProblem(of: step)
                    ?? setup.specification.senderProblem(of: step, from: source, screen: screenName(source, session))
            )
        case .deepLink(let key, let sequence, let path, let sender):
            acknowledgements.steppers[key, default: StepperRecord()].take(sequence)
            submitDeepLink(path, sequence: sequence, of: key, sender: sender)
        case .refused(let key, let sequence, let refusal):
            acknowledgements.steppers[key, default: StepperRecord()].take(sequence)
            refuse(sequence, of: key, refusal, to: "", correlation: 0)
        case .visibility(let presenter, let visibility, let presentables):
            apply(try engine.report(visibility, of: presentables, by: presenter, session: session))
        case .presenterLost(let presenter):
            presenterLost(presenter, session: session)
        case .sessionData(let key, let value):
            try engine.setSessionData(key, value, session: session, checkingLimit: false)
        case .guardAnswer(let question, let allowed):
            apply(try engine.answerGuard(question, allowed: allowed, session: session))
        case .timePassed:
            break
        case .inspectorLeft(let name):
            acknowledgements.steppers[StepperKey(session: session, role: .inspector, name: name)] = nil
        }
        if case .timePassed = entry.input {
        } else {
            ledger.used(session, at: entry.wall)
        }
        turn.messages = []
    }

    /// The name of the screen a step's source is, when it is one on screen in the session.
    private func screenName(_ source: StepSource, _ session: SessionID) -> String? {
        guard case .presentable(let id) = source else { return nil }
        return engine.screens(of: session)?[id]?.description.name
    }

    /// After a restart: the engine's clock catches up with flowd's, every presenter is gone until it comes back (its visible screens become hidden, as for a
    /// lost presenter), and the guard questions that were waiting are asked again (whoever was asked before
    /// answered a flowd that is gone).
    public mutating func restarted() -> [Outgoing] {
        turn.messages = []
        // The engine's clock catches up with flowd's; deadlines that fell meanwhile fire now.
        let passed = engine.advanceTime(to: EngineTime(milliseconds: now))
        for session in passed.sessions {
            record(.timePassed, session: session)
        }
        apply(passed)
        for session in engine.sessionIDs {
            guard let screens = engine.screens(of: session) else { continue }
            for presenter in screens.windowRoots.keys.sorted() {
                presenterLost(presenter, session: session)
            }
        }
        for request in engine.pendingGuardRequests {
            ask(request)
        }
        return turn.messages
    }

    /// Switches to other flows at start-up (the flows file changed since the journal was written): every session
    /// goes on with the new definitions of its flows, and is written whole. Sessions using a flow the new file does
    /// not have are ended when `droppingMissing`; otherwise nothing changes and the error names them.
    public mutating func switchFlows(
        to specification: FlowSpecification,
        droppingMissing: Bool
    ) throws(FlowsChangedError) -> [SessionID] {
        let names = Set(specification.flows.map(\.name))
        var missing: [(SessionID, [String])] = []
        for session in engine.sessionIDs {
            let flows = Set(engine.inspect(session)?.flows.map(\.name) ?? []).subtracting(names)
            if !flows.isEmpty {
                missing.append((session, flows.sorted()))
            }
        }
        if !missing.isEmpty && !droppingMissing {
            throw FlowsChangedError(missing: missing)
        }
        for (session, _) in missing {
            endSession(session)
        }
        turn.messages = []
        do {
            _ = try reload(specification)
        } catch {
            throw FlowsChangedError(missing: [], reason: error.message)
        }
        turn.messages = []
        snapshotEverySession()
        return missing.map(\.0)
    }
}

/// The flows file no longer has flows that stored sessions use.
public struct FlowsChangedError: Error, Sendable, CustomStringConvertible {
    /// The sessions, with the flows they use that the file lacks.
    public let missing: [(SessionID, [String])]
    /// Another reason the new flows could not be taken.
    public var reason: String?

    init(missing: [(SessionID, [String])], reason: String? = nil) {
        self.missing = missing
        self.reason = reason
    }

    public var description: String {
        if let reason { return reason }
        let shown = missing.prefix(20).map { "\($0.0) (uses \($0.1.joined(separator: ", ")))" }
        let more = missing.count > 20 ? " and \(missing.count - 20) more" : ""
        return
            "the flows file no longer has flows that stored sessions use: \(shown.joined(separator: "; "))\(more); restore those flows, or start with --drop-sessions-with-missing-flows to end these sessions"
    }
}

extension StoredState {
    /// The flows the stored sessions were written with, to replay them: `current` when the store keeps no other text
    /// (or the same), else the text it keeps.
    /// - Throws: ``FlowSpecError`` when the kept text does not read.
    package func flowsWrittenWith(current: FlowSpecification) throws(FlowSpecError) -> FlowSpecification {
        guard let text = metadata[StoreKeys.flows], text != current.source else { return current }
        return try FlowSpecification.parse(text, file: metadata[StoreKeys.flowsFile] ?? "the stored flows")
    }
}
