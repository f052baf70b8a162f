import ArgumentParser
import FlowBus
import FlowInspector
import FlowWire
import Foundation

/// `flowctl watch`: the live stream of what flowd decides.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Watch the bus live: steps and their fate, navigations and their commands, flows, visibility, peers.",
        discussion: """
            Watching taps flowd's inspection stream: flowd publishes events only while someone watches, never \
            waits for a watcher, and a watcher that falls far behind loses events rather than slowing flowd. \
            Filters combine (all must match); a repeated filter matches any of its values. Without --type, the \
            inputs that a later line repeats (stepReceived, willNavigate, flowReady, visibilityReported) are left \
            out; --all shows them. --type takes a line's label or a kind of event: session, peer, step, received, \
            deeplink, adapted, navigate, commands, rejected, flow, visibility, reported, data, guard, error. Output \
            is coloured on a terminal, unless NO_COLOR is set or --color never.

            Exits 0 when stopped (Ctrl-C, --count reached, or --timeout without --count), 1 when --timeout ends a \
            --count watch early, 69 when flowd is unreachable.

            Examples:
              flowctl watch
              flowctl watch --session kiosk-7 --type step --type commands
              flowctl watch --stepper app --json | jq 'select(.fields.accepted == false)'
              flowctl watch --step paymentDone --count 1 --timeout 30   # wait for one step in a script

            In a fleet of flowd instances, it watches every live instance at once; each line starts with the \
            instance it comes from (JSON: an "instance" field).
            """
    )

    enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
        case auto, always, never
    }

    @Option(help: "Only this session (flowctl exits 1 when flowd does not have it, unless --wait).")
    var session: String?

    @Flag(help: "With --session: watch even if flowd does not have the session yet (it may come).")
    var wait = false

    @Option(help: "Only what concerns this flow (name or id; repeatable).")
    var flow: [String] = []

    @Option(help: "Only steps of this stepper and its registrations (repeatable).")
    var stepper: [String] = []

    @Option(help: "Only what concerns this presenter: its commands, reports, screens (repeatable).")
    var presenter: [String] = []

    @Option(
        name: .customLong("type"),
        help: ArgumentHelp(
            "Only these lines: a label they start with (step, navigate, flow, commands, peer...) or a kind of event (stepFate, didNavigate...), in any case (all are listed above); repeatable.",
            valueName: "word"
        )
    )
    var types: [String] = []

    @Option(help: "Only what concerns this step, by name (repeatable).")
    var step: [String] = []

    @Flag(help: "Show every kind of event.")
    var all = false

    @Flag(help: "One JSON object per line: {\"kind\", \"session\", \"sentAt\", \"fields\"}.")
    var json = false

    @Option(help: "Time at the start of each line: local, utc or none.")
    var time: WatchFormatter.Clock = .local

    @Option(help: "Colour: auto (on a terminal without NO_COLOR), always or never.")
    var color: ColorChoice = .auto

    @Option(help: "Stop after this many items.")
    var count: Int?

    @Option(help: "Stop after this many seconds.")
    var timeout: Double?

    @OptionGroup var bus: BusOptions

    func validate() throws {
        if let count, count <= 0 {
            throw ValidationError("--count must be positive, not \(count)")
        }
        if let timeout, !(timeout > 0) {
            throw ValidationError("--timeout must be a positive number of seconds, not \(timeout)")
        }
        for type in types where WatchVocabulary.kinds(for: type) == nil {
            throw ValidationError("unknown event type '\(type.prefix(64))'; use one of \(WatchVocabulary.words)")
        }
    }

    func run() async throws {
        var filter = WatchFilter()
        filter.kinds = types.reduce(into: Set<String>()) { $0.formUnion(WatchVocabulary.kinds(for: $1) ?? []) }
        filter.all = all
        filter.flows = flow
        filter.steppers = stepper
        filter.presenters = presenter
        filter.steps = step
        if let session, !wait {
            try await bus.requireSession(session)
        }
        // A fleet: every live instance; else the one flowd.
        let instances = try await bus.fleetInstances()
        // Before the streams open: asking for the tree of a session that does not exist yet (--wait) is refused,
        // and the refusal, published, would be the first line watched.
        let names = await knownNames()
        var streams: [(instance: String?, stream: InspectionStream)] = []
        let targets: [(name: String?, endpoints: Endpoints)] =
            instances.isEmpty ? [(nil, bus.endpoints)] : instances.map { ($0.name, $0.endpoints) }
        for (name, endpoints) in targets {
            var options = bus.clientOptions
            if name != nil {
                options.endpoints = endpoints
                options.alternateEndpoints = []
            }
            do {
                streams.append(
                    (name, try await InspectionStream.open(session: session, commands: true, options: options))
                )
            } catch {
                guard error.code == .unreachable else { throw error }
                printError("flowctl: flowd is not answering at \(options.endpoints.events) (waited \(bus.timeout) ms)")
                throw ExitCode(69)
            }
        }
        let watched =
            instances.isEmpty
            ? bus.clientOptions.endpoints.events
            : "the fleet's \(instances.count) instances (\(instances.map(\.name).joined(separator: ", ")))"
        printError("watching flowd at \(watched)\(session.map { " (session \($0))" } ?? ""); Ctrl-C to stop")
        let formatter = WatchFormatter(colored: colored, clock: time)
        let opened = streams
        let counted = try await show(
            Self.merged(opened),
            close: {
                for (_, stream) in opened {
                    stream.close()
                }
            },
            filter: filter,
            names: names,
            formatter: formatter
        )
        if let count, counted < count {
            throw ExitCode(1)
        }
    }

    /// The batches of several streams as they come, each with the instance it comes from.
    static func merged(
        _ streams: [(instance: String?, stream: InspectionStream)]
    ) -> AsyncStream<(instance: String?, batch: [Inspected])> {
        AsyncStream { continuation in
            let readers = Task {
                await withTaskGroup(of: Void.self) { group in
                    for (instance, stream) in streams {
                        group.addTask {
                            for await batch in stream.batches {
                                continuation.yield((instance, batch))
                            }
                        }
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in readers.cancel() }
        }
    }

    /// Shows items until --count or --timeout; returns how many were shown.
    private func show(
        _ batches: AsyncStream<(instance: String?, batch: [Inspected])>,
        close: @escaping @Sendable () -> Void,
        filter: WatchFilter,
        names initial: WatchNames,
        formatter: WatchFormatter
    ) async throws -> Int {
        let timer = timeout.map { seconds in
            Task {
                try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                close()
            }
        }
        defer { timer?.cancel() }
        var names = initial
        var shown = 0
        // What arrived together is written together: one write per burst, each line whole.
        reading: for await (instance, batch) in batches {
            var lines: [UInt8] = []
            defer { if !lines.isEmpty { printLines(lines) } }
            for inspected in batch {
                let item: WatchedItem
                switch inspected {
                case .event(let event, let header): item = WatchedItem(event, header: header)
                case .connectionLost:
                    printError("flowctl: lost the connection to flowd; events until it is back are missed")
                    continue
                case .connectionRestored:
                    printError("flowctl: connected to flowd again")
                    continue
                case .skipped(let count):
                    printError("flowctl: skipped \(count) event\(count == 1 ? "" : "s"): the output fell behind")
                    continue
                }
                names.learn(from: item)
                guard filter.shows(item, names: names) else { continue }
                if json {
                    let object = formatter.json(item)
                    if let instance, object.first == UInt8(ascii: "{") {
                        lines +=
                            Array("{\"instance\":\(JSONValue.string(instance).description),".utf8) + object.dropFirst()
                    } else {
                        lines += object
                    }
                } else {
                    lines += ((instance.map { "[\($0)] " } ?? "") + formatter.line(item, names: names)).utf8
                }
                lines.append(UInt8(ascii: "\n"))
                shown += 1
                if let count, shown >= count {
                    close()
                    break reading
                }
            }
        }
        return shown
    }

    /// Flows' names and screens' presenters of the sessions watched, from their trees.
    private func knownNames() async -> WatchNames {
        var names = WatchNames()
        guard let inspector = try? await InspectorClient.connect(session: session, options: bus.clientOptions) else {
            return names
        }
        let sessions: [String]
        if let session {
            sessions = [session]
        } else {
            let listed = try? await inspector.query("sessions", timeout: .milliseconds(bus.timeout))
            sessions = (listed?.arrayValue ?? []).prefix(100).compactMap { $0.objectValue?["session"]?.stringValue }
        }
        for session in sessions {
            if let reply = try? await inspector.query("tree", session: session, timeout: .milliseconds(bus.timeout)),
                let tree = try? SessionTree(reply)
            {
                names.learn(from: tree)
            }
        }
        await inspector.close()
        return names
    }

    private var colored: Bool {
        switch color {
        case .always: true
        case .never: false
        case .auto:
            isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) != false
                && ProcessInfo.processInfo.environment["TERM"] != "dumb" && !json
        }
    }
}

extension WatchFormatter.Clock: ExpressibleByArgument {}
