import FlowBus
import FlowSpec
import FlowWebInspector
import FlowWire
import Foundation

/// What `flowctl web` watches of flowd for the page: the inspection stream (every instance of a fleet), the
/// sessions and their peers once a second, and the trees of the sessions the pages look at, after each batch of
/// their events. When flowd goes away the page is told, and flowctl tries again every second until it is back.
actor WebLiveFeed {
    /// An instance of flowd, or flowd alone (`name` nil).
    private struct Instance {
        let name: String?
        let inspector: InspectorClient
    }

    private let bus: BusOptions
    private let hub: FeedHub
    /// How often events go to the pages, and how often at most a watched session's tree is asked again.
    static let flushInterval = Duration.milliseconds(100)

    private var instances: [Instance] = []
    private var streams: [InspectionStream] = []
    /// What the terminal and the pages were last told of flowd's absence.
    private var lastSaid: String?
    private var nextSeq = 1
    private var pending: [JSONValue] = []
    /// The last event's number per session, and the sessions with events since their tree was last sent.
    private var lastSeq: [String: Int] = [:]
    private var changed: Set<String> = []
    /// The sessions flowd has, as the last sessions list and the events since said, and the instance serving each
    /// (in a fleet; `""` for flowd alone).
    private var servedBy: [String: String] = [:]
    /// A session started or ended since the sessions were last listed (they are listed again at the next tick, not
    /// a second later), and when they were last listed.
    private var sessionsChanged = false
    private var listedAt = ContinuousClock.now
    /// The flow file flowd runs, as its `flows` reply says (recordings are replayed with it).
    private(set) var flowsFile: String?
    /// The flow file given with --flows, which the mirrors use before flowd's.
    private let flows: String?
    /// The sessions seen start, mirrored to give each event its trees; nil without a flow file to mirror them with.
    private var mirrors: SessionMirrors?
    /// Why there are no mirrors, for the page.
    private var noMirrors = "flowctl is not watching flowd"

    init(bus: BusOptions, hub: FeedHub, flows: String?) {
        self.bus = bus
        self.hub = hub
        self.flows = flows
    }

    /// The trees just before and just after event `seq` of `session`, as the feed's `treesAround` message.
    func trees(around seq: Int, in session: String) -> JSONValue {
        guard let mirrors else {
            return MirrorGap(noMirrors).message(session: session, seq: seq)
        }
        switch mirrors.trees(around: seq, in: session) {
        case .success(let trees): return trees.message(session: session, seq: seq)
        case .failure(let gap): return gap.message(session: session, seq: seq)
        }
    }

    /// Watches until cancelled: connects, feeds the pages, and when flowd is gone, says so and connects again.
    func run() async {
        while !Task.isCancelled {
            var again = false
            do {
                try await connect()
                try await feed()
            } catch is CancellationError {
                break
            } catch {
                // Stopped (Ctrl-C): the streams closing is not flowd going away.
                if Task.isCancelled { break }
                again = (error as? WebFeedProblem)?.atOnce ?? false
                await disconnect(because: "\(error)")
            }
            if !again {
                try? await Task.sleep(for: .seconds(1))
            }
        }
        await disconnect(because: nil)
    }

    /// The tree of `session` for the pages that look at it, at once (a page selected it).
    func selected(_ session: String?) async {
        guard let session else { return }
        await sendTree(of: session)
    }

    /// A page connected: the sessions now, rather than at the next second.
    func pageConnected() async {
        guard !instances.isEmpty else { return }
        try? await listSessions()
    }

    // MARK: Connection

    private func connect() async throws {
        var options = bus.clientOptions
        options.connectTimeout = .milliseconds(min(bus.timeout, 2000))
        let first: InspectorClient
        do {
            first = try await InspectorClient.connect(options: options)
        } catch {
            throw WebFeedProblem("flowd is not answering at \(bus.endpoints.control): waiting for it to come back")
        }
        let fleet = (try? await first.query("fleet").objectValue) ?? [:]
        var targets: [(name: String?, options: ClientOptions)] = [(nil, options)]
        if fleet["fleet"] == .bool(true) {
            targets = fleetTargets(fleet, options: options)
            await first.close()
        } else {
            instances = [Instance(name: nil, inspector: first)]
        }
        for (name, options) in targets {
            if name != nil {
                guard let inspector = try? await InspectorClient.connect(options: options) else { continue }
                instances.append(Instance(name: name, inspector: inspector))
            }
            streams.append(try await InspectionStream.open(commands: true, options: options))
        }
        guard let inspector = instances.first?.inspector else {
            throw WebFeedProblem("no instance of the fleet answers at \(bus.endpoints.control): waiting for one")
        }
        if let flows = try? await inspector.query("flows") {
            flowsFile = flows.objectValue?["file"]?.stringValue
            hub.broadcast(["type": "flows", "flows": flows], keep: true)
        }
        startMirrors()
        lastSaid = nil
        let names = instances.compactMap(\.name)
        let watched =
            names.isEmpty
            ? "flowd at \(bus.endpoints.control)"
            : "the fleet's \(names.count) instance\(names.count == 1 ? "" : "s") (\(names.joined(separator: ", ")))"
        hub.broadcast(["type": "status", "connected": true, "message": .string("watching \(watched)")], keep: true)
        printLine("flowctl web: watching \(watched)")
    }

    /// Mirrors for the sessions that start from now on, with the flow file given or the one flowd runs, read again
    /// each time flowd comes back (the mirrors of before stay, stopped where flowctl lost the stream, to say why).
    private func startMirrors() {
        guard let file = flows ?? flowsFile else {
            noMirrors =
                "flowctl has no flow file to mirror sessions with (flowd did not say its own): start it with --flows FILE"
            mirrors?.lost(at: nextSeq, because: noMirrors)
            return
        }
        let specification: FlowSpecification
        do {
            specification = try FlowSpecification.load(contentsOf: file)
        } catch {
            noMirrors = "flowctl cannot mirror sessions with the flow file \(file): \(error)"
            mirrors = nil
            return
        }
        if mirrors == nil {
            mirrors = SessionMirrors(specification: specification)
        } else {
            mirrors?.use(specification)
        }
    }

    private func fleetTargets(_ fleet: JSONObject, options: ClientOptions) -> [(name: String?, options: ClientOptions)]
    {
        (fleet["instances"]?.arrayValue?.compactMap(\.objectValue) ?? []).compactMap { member in
            guard member["alive"] == .bool(true), let name = member["name"]?.stringValue,
                let endpoints = Endpoints.preferred(
                    control: member["control"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                    events: member["events"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                    like: bus.endpoints.control
                )
            else { return nil }
            var instanceOptions = options
            instanceOptions.endpoints = endpoints
            instanceOptions.alternateEndpoints = []
            return (name, instanceOptions)
        }
    }

    private func disconnect(because reason: String?) async {
        for stream in streams {
            stream.close()
        }
        for instance in instances {
            await instance.inspector.close()
        }
        streams = []
        instances = []
        mirrors?.lost(
            at: nextSeq,
            because:
                "flowctl lost flowd's stream (flowd went away, or restarted and restored the session without showing how): it is mirrored no more"
        )
        flush()
        guard let reason, reason != lastSaid else { return }
        // Said once each time it changes, on the terminal as on the page.
        lastSaid = reason
        printLine("flowctl web: \(reason)")
        hub.broadcast(["type": "status", "connected": false, "message": .string(reason)], keep: true)
    }

    // MARK: Feeding

    /// Feeds the pages until flowd is gone (a query fails, or the events connection is lost).
    private func feed() async throws {
        let merged = Watch.merged(
            zip(instances.map(\.name), streams).map { (instance: $0.0, stream: $0.1) }
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                for await (instance, batch) in merged {
                    try await self.take(batch, from: instance)
                }
                throw WebFeedProblem("the events connection to flowd closed: waiting for it to come back")
            }
            group.addTask { [self] in
                while true {
                    try await Task.sleep(for: Self.flushInterval)
                    try await self.tick()
                }
            }
            group.addTask { [self] in
                while true {
                    // Nobody looks: flowd is not asked (a page that connects gets the last list, then a new one).
                    if self.hub.hasPages {
                        try await self.listSessions()
                    }
                    try await Task.sleep(for: .seconds(1))
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    private func take(_ batch: [Inspected], from instance: String?) throws {
        for item in batch {
            switch item {
            case .event(let event, let header):
                let session = event.session ?? "-"
                pending.append(
                    [
                        "seq": .int(nextSeq), "session": .string(session), "kind": .string(event.kind),
                        "at": .int(Int(header.sentAt)), "instance": instance.map(JSONValue.string) ?? .null,
                        "fields": .object(event.fields),
                    ]
                )
                lastSeq[session] = nextSeq
                changed.insert(session)
                mirrors?.take(event, seq: nextSeq, at: header.sentAt, instance: instance)
                nextSeq += 1
                if event.kind == "sessionEnded" {
                    servedBy[session] = nil
                    sessionsChanged = true
                } else if event.kind == "sessionStarted" {
                    if servedBy[session] == nil {
                        servedBy[session] = instance ?? ""
                    }
                    sessionsChanged = true
                }
            case .connectionLost:
                throw WebFeedProblem("flowd's events connection was lost: waiting for it to come back")
            case .connectionRestored:
                break
            case .skipped(let count):
                mirrors?.lost(at: nextSeq, because: "flowctl missed \(count) events of flowd's stream")
                nextSeq += count
                pending.append(
                    [
                        "seq": .int(nextSeq - 1), "session": "-", "kind": "skipped", "at": .int(Int(Self.wallNow())),
                        "instance": .null, "fields": ["count": .int(count)],
                    ]
                )
            }
        }
        // A burst far beyond what a page draws goes out at once rather than piling up.
        if pending.count >= 2000 {
            flush()
        }
    }

    private func flush() {
        guard !pending.isEmpty else { return }
        hub.broadcastEvents(pending)
        pending = []
    }

    /// Events out, and the trees of watched sessions that changed.
    private func tick() async throws {
        flush()
        // A session that started or ended shows in the list within a tick (at most four lists a second).
        if sessionsChanged, hub.hasPages, ContinuousClock.now - listedAt >= .milliseconds(250) {
            try await listSessions()
        }
        let due = changed.intersection(hub.selectedSessions)
        changed.subtract(due)
        for session in due.sorted() {
            await sendTree(of: session)
        }
    }

    private func sendTree(of session: String) async {
        // A session flowd does not have is not asked about: its refusal would be published as an error event.
        guard let name = servedBy[session],
            let inspector = instances.first(where: { ($0.name ?? "") == name })?.inspector
        else { return }
        let seq = lastSeq[session] ?? 0
        guard let tree = try? await inspector.query("tree", session: session, timeout: .seconds(2)) else {
            return
        }
        hub.send(
            ["type": "tree", "session": .string(session), "seq": .int(seq), "tree": tree],
            toPagesWatching: session
        )
    }

    /// The sessions of every instance, with their peers. In a fleet, the instances alive are asked first: when they
    /// are not those watched (one joined, or one's lease expired), everything is watched again.
    private func listSessions() async throws {
        let now = Self.wallNow()
        listedAt = .now
        sessionsChanged = false
        if let first = instances.first?.inspector, instances.first?.name != nil {
            let fleet = (try? await first.query("fleet", timeout: .seconds(2)).objectValue) ?? [:]
            let alive = Set(fleetTargets(fleet, options: bus.clientOptions).compactMap(\.name))
            let watched = Set(instances.compactMap(\.name))
            if !alive.isEmpty, alive != watched {
                throw WebFeedProblem(
                    "the fleet's instances changed (now \(alive.sorted().joined(separator: ", "))): watching them again",
                    atOnce: true
                )
            }
        }
        var sessions: [JSONValue] = []
        var served: [String: String] = [:]
        for instance in instances {
            let listed: JSONValue
            let registrations: JSONValue
            do {
                listed = try await Self.everyPage(of: "sessions", key: "session", from: instance.inspector)
                registrations = try await Self.everyPage(of: "registrations", key: "id", from: instance.inspector)
            } catch {
                throw WebFeedProblem(
                    "flowd does not answer its queries (\(error.message)): waiting for it to come back"
                )
            }
            let timeout = instance.inspector.heartbeatTimeout
            var peers: [String: [JSONValue]] = [:]
            for entry in registrations.arrayValue ?? [] {
                guard let fields = entry.objectValue, let session = fields["session"]?.stringValue else { continue }
                let heard = now - (fields["lastHeard"]?.intValue.map(Int64.init) ?? now)
                peers[session, default: []].append(
                    [
                        "id": fields["id"] ?? .null, "role": fields["role"] ?? .null, "name": fields["name"] ?? .null,
                        "lastHeardMs": .int(Int(max(0, heard))), "alive": .bool(heard <= Int64(timeout)),
                    ]
                )
            }
            for entry in listed.arrayValue ?? [] {
                guard let fields = entry.objectValue, let session = fields["session"]?.stringValue else { continue }
                served[session] = instance.name ?? ""
                let created = fields["createdAt"]?.intValue.map(Int64.init)
                let active = fields["lastActivity"]?.intValue.map(Int64.init)
                sessions.append(
                    [
                        "session": .string(session), "ready": fields["ready"] ?? false,
                        "instance": instance.name.map(JSONValue.string) ?? .null, "flows": fields["flows"] ?? 0,
                        "ageMs": created.map { .int(Int(max(0, now - $0))) } ?? .null,
                        "idleMs": active.map { .int(Int(max(0, now - $0))) } ?? .null,
                        "peers": .array(peers[session] ?? []),
                    ]
                )
            }
        }
        servedBy = served
        hub.broadcast(["type": "sessions", "at": .int(Int(now)), "sessions": .array(sessions)], keep: true)
    }

    /// Every entry of a listing query, a thousand at a time (flowd's most per reply).
    private static func everyPage(
        of what: String,
        key: String,
        from inspector: InspectorClient
    ) async throws(FlowBusError) -> JSONValue {
        var entries: [JSONValue] = []
        var after: String?
        while true {
            var arguments: JSONObject = ["limit": .int(BusOptions.pageSize)]
            if let after { arguments["after"] = .string(after) }
            let page = try await inspector.query(what, arguments: arguments, timeout: .seconds(2)).arrayValue ?? []
            entries += page
            guard page.count == BusOptions.pageSize, let last = page.last?.objectValue?[key]?.stringValue else { break }
            after = last
        }
        return .array(entries)
    }

    static func wallNow() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }
}

/// Why the live feed stopped: said to the page as it is; `atOnce`: watch again without waiting (flowd is there).
struct WebFeedProblem: Error, CustomStringConvertible {
    let description: String
    let atOnce: Bool

    init(_ description: String, atOnce: Bool = false) {
        self.description = description
        self.atOnce = atOnce
    }
}
