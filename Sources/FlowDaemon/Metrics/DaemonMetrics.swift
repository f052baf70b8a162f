import CoreMetrics
import FlowBuildInfo
import FlowWire
import Foundation
import Prometheus
import Synchronization

/// flowd's metrics, kept in a Prometheus registry that `/metrics` shows (see ``MetricsService``).
///
/// The loop counts in plain integers (its ``Counters``, which the `stats` query also shows); at every tick (half
/// a heartbeat interval) ``publish(_:journalWaiting:answersWaiting:)`` hands what changed to swift-metrics'
/// instruments, so the step path pays nothing for them. The two latencies are measured where they happen:
/// ``stepDecision`` by the loop for every step, ``journalWrite`` by the journal writer for every transaction.
public final class DaemonMetrics: Sendable {
    /// The registry `/metrics` shows.
    public let registry = PrometheusCollectorRegistry()
    /// How long the coordinator took to decide a step or deep link (read, adapt, navigate, answer).
    public let stepDecision: CoreMetrics.Timer
    /// How long one journal transaction took to write (with its fsync under `durability: fsync`).
    public let journalWrite: CoreMetrics.Timer

    private let factory: DocumentedPrometheusFactory
    private let published = Mutex(Published())

    /// What was handed to the instruments last, and the instruments made so far, by name and label value.
    private struct Published: ~Copyable {
        var counters = Counters()
        var labeled: [String: [String: CoreMetrics.Counter]] = [:]
        var cpuSeconds = 0.0
    }

    /// A registry with every metric flowd has, at zero, and `flowd_build_info`.
    public init() {
        factory = DocumentedPrometheusFactory(registry: registry, descriptions: MetricCatalog.descriptions)
        stepDecision = Timer(label: MetricCatalog.stepDecision, factory: factory)
        journalWrite = Timer(label: MetricCatalog.journalWrite, factory: factory)
        Gauge(
            label: "flowd_build_info",
            dimensions: [("version", BuildInfo.version), ("commit", BuildInfo.commit)],
            factory: factory
        ).record(1)
        Gauge(label: "flowd_start_time_seconds", factory: factory).record(Date().timeIntervalSince1970)
        // Every series a dashboard plots exists from the start, at zero: a rate over a missing series is empty.
        publish(
            CoordinatorFigures(
                counters: Counters(),
                sessions: 0,
                peersByRole: [:],
                pendingJournalEntries: 0,
                pendingInspectionEvents: 0
            ),
            journalWaiting: 0,
            answersWaiting: 0
        )
        for fate in ["accepted", "dropped"] {
            _ = counter("flowd_steps_total", "fate", fate)
        }
        storeOutage(since: nil)
    }

    /// Whether the store answers: `flowd_store_up` 1 and `flowd_store_down_since_seconds` 0 while it does, else
    /// 0 and when it stopped answering (Unix time).
    public func storeOutage(since: Date?) {
        Gauge(label: "flowd_store_up", factory: factory).record(since == nil ? 1 : 0)
        Gauge(label: "flowd_store_down_since_seconds", factory: factory).record(since?.timeIntervalSince1970 ?? 0)
    }

    /// Hands the loop's figures to the instruments: counters by what they grew since the last call, gauges as
    /// they are. Called on the loop's thread, at every tick.
    /// - Parameters:
    ///   - figures: the coordinator's counters and gauges.
    ///   - journalWaiting: groups handed to the journal writer and not yet written.
    ///   - answersWaiting: turns whose answers wait for their journal writes.
    public func publish(_ figures: CoordinatorFigures, journalWaiting: Int, answersWaiting: Int) {
        let now = figures.counters
        published.withLock { published in
            let last = published.counters
            published.counters = now
            func add(_ name: String, _ value: Int, _ previous: Int) {
                if value > previous || (value == 0 && previous == 0) {
                    CoreMetrics.Counter(label: name, factory: factory).increment(by: value - previous)
                }
            }
            func add(_ name: String, _ label: String, _ values: [String: Int], _ previous: [String: Int]) {
                for (key, value) in values where value > previous[key, default: 0] {
                    let counter =
                        published.labeled[name, default: [:]][key]
                        ?? {
                            let made = CoreMetrics.Counter(label: name, dimensions: [(label, key)], factory: factory)
                            published.labeled[name, default: [:]][key] = made
                            return made
                        }()
                    counter.increment(by: value - previous[key, default: 0])
                }
            }
            add("flowd_steps_received_total", now.stepsIn, last.stepsIn)
            add("flowd_steps_total", "fate", ["accepted": now.accepted], ["accepted": last.accepted])
            let dropped = now.dropped.values.reduce(0, +)
            let droppedBefore = last.dropped.values.reduce(0, +)
            add("flowd_steps_total", "fate", ["dropped": dropped], ["dropped": droppedBefore])
            add("flowd_steps_dropped_total", "reason", now.dropped, last.dropped)
            add("flowd_command_batches_total", now.batchesOut, last.batchesOut)
            add("flowd_commands_total", now.commandsOut, last.commandsOut)
            add("flowd_messages_received_total", "type", now.messagesIn.byType, last.messagesIn.byType)
            add("flowd_messages_sent_total", "type", now.messagesOut.byType, last.messagesOut.byType)
            add("flowd_errors_total", "code", now.errors, last.errors)
            add("flowd_bounds_hit_total", "bound", now.boundsHit, last.boundsHit)
            add("flowd_sessions_created_total", now.sessionsCreated, last.sessionsCreated)
            add("flowd_sessions_restored_total", now.sessionsRestored, last.sessionsRestored)
            add("flowd_sessions_expired_total", now.sessionsExpired, last.sessionsExpired)
            add("flowd_peers_lost_total", now.peersLost, last.peersLost)
        }
        Gauge(label: "flowd_sessions", factory: factory).record(figures.sessions)
        for role in Role.allCases {
            Gauge(label: "flowd_peers", dimensions: [("role", role.rawValue)], factory: factory)
                .record(figures.peersByRole[role, default: 0])
        }
        Gauge(label: "flowd_journal_pending_entries", factory: factory).record(figures.pendingJournalEntries)
        Gauge(label: "flowd_journal_waiting_groups", factory: factory).record(journalWaiting)
        Gauge(label: "flowd_answers_waiting_turns", factory: factory).record(answersWaiting)
        Gauge(label: "flowd_inspection_pending_events", factory: factory).record(figures.pendingInspectionEvents)
    }

    /// A step was decided: the time since `started` goes to ``stepDecision``.
    /// - Parameter started: when the loop handed the step to the coordinator.
    public func stepDecided(since started: ContinuousClock.Instant) {
        stepDecision.recordNanoseconds(Self.nanoseconds(ContinuousClock.now - started))
    }

    /// A journal transaction was written: the time since `started` goes to ``journalWrite``.
    /// - Parameter started: when the transaction began.
    public func journalWritten(since started: ContinuousClock.Instant) {
        journalWrite.recordNanoseconds(Self.nanoseconds(ContinuousClock.now - started))
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }

    /// A labeled counter (made once, then found in the registry).
    private func counter(_ name: String, _ label: String, _ value: String) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: name, dimensions: [(label, value)], factory: factory)
    }

    /// Reads the process's own figures (memory, files, processor time) from /proc, before a scrape.
    public func refreshProcessFigures() {
        let process = ProcessFigures.read()
        Gauge(label: "process_resident_memory_bytes", factory: factory).record(process.residentBytes)
        Gauge(label: "process_open_fds", factory: factory).record(process.openFiles)
        Gauge(label: "process_max_fds", factory: factory).record(process.maxFiles)
        let grown = published.withLock { published in
            defer { published.cpuSeconds = max(published.cpuSeconds, process.cpuSeconds) }
            return process.cpuSeconds - published.cpuSeconds
        }
        if grown > 0 {
            FloatingPointCounter(label: "process_cpu_seconds_total", factory: factory).increment(by: grown)
        }
    }

    /// The registry's text, in Prometheus's exposition format (version 0.0.4), after the process's figures are
    /// read.
    public func exposition() -> [UInt8] {
        refreshProcessFigures()
        return registry.emitToBuffer()
    }
}
