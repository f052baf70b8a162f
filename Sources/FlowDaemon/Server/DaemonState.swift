import FlowCore
import FlowSpec
import FlowStore
import Foundation
import Logging

/// The coordinator flowd starts with, and where its state goes: restored from the state directory (held for this
/// process alone) or, for an ephemeral flowd, new.
struct DaemonState {
    var coordinator: Coordinator
    let clock: DaemonClock
    /// Whether the sessions are kept in a store (handed to the journal writer).
    let durable: Bool
    let directory: StateDirectory?
    /// What the restart itself has to send (guard questions asked again).
    var pendingOutput: [Outgoing] = []
    /// An instance of a fleet: its lease, renewed on a connection of its own.
    var lease: PostgresLease?

    /// Opens the state: takes the state directory, reads the store, replays it with the flows it was written with,
    /// then moves on to the current flows; writes the result, and hands the store to `writer`.
    /// - Throws: ``StoreError`` or ``FlowsChangedError``: flowd must not start.
    static func open(
        configuration: DaemonConfiguration,
        specification: FlowSpecification,
        owner: String,
        writer: JournalWriter,
        logger: Logger
    ) throws -> DaemonState {
        if let fleet = configuration.fleet {
            return try openFleet(
                fleet,
                configuration: configuration,
                specification: specification,
                writer: writer,
                logger: logger
            )
        }
        guard let path = configuration.stateDirectory else {
            let clock = DaemonClock(continuingFrom: DaemonClock.wallNow)
            var coordinator = Coordinator(
                specification: specification,
                configuration: configuration,
                epoch: UUID().uuidString,
                now: clock.now,
                logger: logger
            )
            coordinator.wallOffset = DaemonClock.wallNow - clock.now
            coordinator.numberMessages(from: DaemonClock.wallNow)
            logger.info("flowd keeps its sessions in memory only (--ephemeral): a restart loses them")
            return DaemonState(coordinator: coordinator, clock: clock, durable: false, directory: nil)
        }
        let directory = try StateDirectory(path: path, owner: owner)
        let store = try SQLiteStore(path: directory.databasePath, durability: configuration.durability)
        let aheadLog = try openAheadLog(in: directory, store: store, logger: logger)
        let state = try restore(
            from: store,
            at: directory.databasePath,
            configuration: configuration,
            specification: specification,
            directory: directory,
            aheadLog: aheadLog,
            logger: logger
        )
        writer.attach(store, aheadLog: configuration.durability == .os ? aheadLog : nil)
        return state
    }

    /// Opens the ahead log, whatever the durability, and writes to the store the groups the last run left in it
    /// (with the marker that says they are there: a start killed before the log is emptied does not write them
    /// twice); then empties it. Without room for new files, flowd goes on without it (answers wait for their
    /// transactions); files that are there but cannot be read stop flowd: they may hold acknowledged steps.
    private static func openAheadLog(
        in directory: StateDirectory,
        store: SQLiteStore,
        logger: Logger
    ) throws -> AheadLog? {
        let aheadLog: AheadLog
        do {
            aheadLog = try AheadLog(directory: directory.path)
        } catch {
            guard !AheadLog.mayHoldGroups(in: directory.path) else {
                throw StoreError(
                    .unavailable,
                    "cannot read the ahead log in \(directory.path), which may hold acknowledged steps: \(error.message)"
                )
            }
            logger.warning("no ahead log, answers wait for their transactions: \(error.message)")
            return nil
        }
        if let pending = aheadLog.pending(after: try store.metadataValue(AheadLog.metadataKey)) {
            var groups = pending.groups
            groups[groups.count - 1].metadata[AheadLog.metadataKey] = pending.marker
            try store.commit(groups)
            logger.info(
                "wrote \(groups.count) group\(groups.count == 1 ? "" : "s") of the last run from the ahead log to \(directory.databasePath)"
            )
        }
        aheadLog.clear()
        return aheadLog
    }

    /// Opens an instance of a fleet: registers it in the fleet's database (a new fencing token), restores the
    /// sessions its name owns, and hands the store to `writer`.
    static func openFleet(
        _ fleet: FleetConfiguration,
        configuration: DaemonConfiguration,
        specification: FlowSpecification,
        writer: JournalWriter,
        logger: Logger
    ) throws -> DaemonState {
        let store = try PostgresStore(
            url: fleet.storeURL,
            instance: fleet.identity(running: specification),
            durability: configuration.durability,
            availability: writer.availability,
            waiting: { logger.warning("the fleet's database does not answer yet: \($0)") }
        )
        // A flowd that ran as this instance and was killed: its lease expires first (one that runs renews it).
        try store.awaitName()
        var state = try restore(
            from: store,
            at: "\(store.statistics.location) as instance \(fleet.instance)",
            configuration: configuration,
            specification: specification,
            directory: nil,
            aheadLog: nil,
            logger: logger
        )
        state.coordinator.joinFleet(as: fleet.identity(running: specification))
        state.lease = try store.makeLease()
        writer.attach(store)
        return state
    }

    /// Restores the coordinator from `store`: replayed with the flows it was written with, then moved on to the
    /// current flows, and writes the result. With `aheadLog` (emptied by now: what the last run left in it was
    /// written to the store), the store's marker names this run's epoch.
    private static func restore(
        from store: any SessionStore,
        at location: String,
        configuration: DaemonConfiguration,
        specification: FlowSpecification,
        directory: StateDirectory?,
        aheadLog: AheadLog?,
        logger: Logger
    ) throws -> DaemonState {
        let started = ContinuousClock.now
        let stored = try store.load()
        let storedClock = stored.metadata[StoreKeys.clock].flatMap { Int64($0) }
        if stored.metadata[StoreKeys.epoch] == nil && !(stored.snapshots.isEmpty && stored.entries.isEmpty) {
            throw StoreError(
                .corrupted,
                "\(location) is damaged: it holds sessions but not the epoch they belong to; restore it from a backup, or move it away to start empty"
            )
        }
        let epoch = stored.metadata[StoreKeys.epoch] ?? UUID().uuidString
        let journalFlows: FlowSpecification
        do {
            journalFlows = try stored.flowsWrittenWith(current: specification)
        } catch {
            // The flows file itself was read and checked: a stored copy that does not read is a damaged state file.
            throw StoreError(
                .invalidRecord,
                "\(location) is damaged: the copy of the flows its journal was written with cannot be read (\(error.message)); restore it from a backup, or move it away to start empty"
            )
        }
        var (coordinator, summary) = try Coordinator.restoring(
            stored,
            specification: journalFlows,
            configuration: configuration,
            epoch: epoch,
            now: storedClock ?? DaemonClock.wallNow,
            logger: logger
        )
        // Restored, the coordinator's clock is the later of the stored clock and the last entry's time.
        let clock = DaemonClock(continuingFrom: coordinator.clock)
        coordinator.wallOffset = DaemonClock.wallNow - clock.now
        coordinator.numberMessages(from: DaemonClock.wallNow)
        if journalFlows.source != specification.source && summary.sessions > 0 {
            let dropped = try coordinator.switchFlows(
                to: specification,
                droppingMissing: configuration.dropSessionsWithMissingFlows
            )
            logger.info(
                dropped.isEmpty
                    ? "the flows file changed since the last run: the sessions go on with the new flows"
                    : "the flows file changed since the last run: the sessions go on with the new flows, except those ended because their flows are gone (--drop-sessions-with-missing-flows)",
                metadata: dropped.isEmpty ? [:] : ["ended": "\(dropped.map(\.rawValue).joined(separator: " "))"]
            )
        } else if journalFlows.source != specification.source {
            _ = try coordinator.switchFlows(to: specification, droppingMissing: true)
        }
        coordinator.setStoreMetadata(StoreKeys.epoch, epoch)
        coordinator.setStoreMetadata(StoreKeys.flows, specification.source)
        coordinator.setStoreMetadata(StoreKeys.flowsFile, specification.file)
        if directory != nil {
            // This run's epoch from now on, or none: a marker of an earlier run never names a log written since.
            coordinator.setStoreMetadata(AheadLog.metadataKey, aheadLog?.marker(through: 0) ?? "none")
        }
        let output = coordinator.restarted()
        try store.commit(coordinator.takeStoreGroup())
        coordinator.storeStatistics = store.statistics
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        logger.info(
            "restored \(coordinator.sessionCount) session\(coordinator.sessionCount == 1 ? "" : "s") (\(summary.snapshots) snapshots, \(summary.entries) journal entries) from \(location) in \(milliseconds) ms"
        )
        return DaemonState(
            coordinator: coordinator,
            clock: clock,
            durable: true,
            directory: directory,
            pendingOutput: output
        )
    }
}
