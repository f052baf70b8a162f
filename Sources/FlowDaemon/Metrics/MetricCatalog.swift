/// Every metric flowd exposes: its name, its HELP text and, for the histograms, their buckets. The README's
/// "Operating flowd" section lists the same.
enum MetricCatalog {
    static let stepDecision = "flowd_step_decision_seconds"
    static let journalWrite = "flowd_journal_write_seconds"

    /// From 10 µs (a step on a warm loop) to a second (a loop that stalls).
    static let stepBuckets: [Duration] = [
        .microseconds(10), .microseconds(25), .microseconds(50), .microseconds(100), .microseconds(250),
        .microseconds(500), .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1),
    ]
    /// From 50 µs (a write to the page cache) to ten seconds (a disk that stalls).
    static let journalBuckets: [Duration] = [
        .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
        .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .seconds(1), .seconds(10),
    ]

    static let descriptions: [String: DocumentedPrometheusFactory.Description] = [
        "flowd_build_info": .init(help: "flowd's version and the commit it was built from (always 1)."),
        "flowd_start_time_seconds": .init(help: "When flowd started, in seconds since 1970."),
        "flowd_steps_received_total": .init(help: "Steps and deep links taken in."),
        "flowd_steps_total": .init(
            help: "Steps decided, by fate (accepted, dropped): those received and those flows emit themselves."
        ),
        "flowd_steps_dropped_total": .init(help: "Steps dropped, by reason (notVisible, unboundStepper...)."),
        "flowd_command_batches_total": .init(help: "COMMANDS batches published to presenters."),
        "flowd_commands_total": .init(help: "Navigation commands published to presenters."),
        "flowd_messages_received_total": .init(help: "Messages received, by type (invalid: unreadable)."),
        "flowd_messages_sent_total": .init(help: "Messages sent or published, by type."),
        "flowd_errors_total": .init(help: "ERROR answers sent, by code."),
        "flowd_bounds_hit_total": .init(help: "Bounds hit, by bound (sessions, messageRate, replyQueue...)."),
        "flowd_sessions": .init(help: "Sessions held."),
        "flowd_sessions_created_total": .init(help: "Sessions created."),
        "flowd_sessions_restored_total": .init(help: "Sessions restored from the state directory at start."),
        "flowd_sessions_expired_total": .init(help: "Sessions ended after idleSessionExpiry without a peer."),
        "flowd_peers": .init(help: "Registered peers, by role."),
        "flowd_peers_lost_total": .init(help: "Peers forgotten after heartbeatTimeout of silence."),
        "flowd_journal_pending_entries": .init(help: "Journal entries of the current turn not yet handed over."),
        "flowd_journal_waiting_groups": .init(help: "Journal groups handed to the writer and not yet written."),
        "flowd_answers_waiting_turns": .init(help: "Turns whose answers wait for their journal writes."),
        "flowd_store_up": .init(help: "1 while the store (the state file, a fleet's database) answers, 0 while not."),
        "flowd_store_down_since_seconds": .init(
            help: "When the store stopped answering (Unix time); 0 while it answers."
        ),
        "flowd_inspection_pending_events": .init(help: "Inspection events waiting to go out together."),
        stepDecision: .init(
            help: "Time the coordinator took to decide a step or deep link, answer included.",
            buckets: stepBuckets
        ),
        journalWrite: .init(help: "Time one journal transaction took to write.", buckets: journalBuckets),
        "process_resident_memory_bytes": .init(help: "Resident memory of flowd, in bytes."),
        "process_open_fds": .init(help: "Open file descriptors of flowd."),
        "process_max_fds": .init(help: "flowd's limit of open file descriptors."),
        "process_cpu_seconds_total": .init(help: "Processor time flowd used, user and system, in seconds."),
    ]
}
