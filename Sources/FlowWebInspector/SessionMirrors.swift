import FlowCore
import FlowSpec
import FlowWire

/// The sessions `flowctl web` saw start, each mirrored in an engine of its own from the inspection stream, so that
/// every event has the tree just before it and just after it — exactly, however many events one batch holds
/// (flowd's `tree` query, asked after a batch, gives only the tree after the batch's last event).
///
/// The engine is deterministic: a session's inputs given in flowd's order, at flowd's times, rebuild flowd's trees.
/// Each mirror checks itself against what flowd published (fates, refusals, guard questions) and stops at the first
/// difference; a session that started before flowctl watched, a mirror that stopped, or an event older than the
/// trees kept has no mirrored trees, and the page says why (it then shows the trees flowd was asked for).
public struct SessionMirrors: Sendable {
    /// The most sessions mirrored at once (a session that starts beyond lets the oldest mirror go), and the most
    /// trees kept for each (the trees after its last inputs; an input that changed nothing shares the tree before).
    public static let maxSessions = 32
    public static let treesPerSession = 1_000

    private var specification: FlowSpecification
    private var mirrors: [String: SessionMirror] = [:]
    /// The mirrored sessions, oldest start first.
    private var started: [String] = []

    /// Mirrors with the flow file flowd runs.
    public init(specification: FlowSpecification) {
        self.specification = specification
    }

    /// Mirrors the sessions that start from now on with `specification` (flowd came back, perhaps with another flow
    /// file); the mirrors of before stay, to answer for the past.
    public mutating func use(_ specification: FlowSpecification) {
        self.specification = specification
    }

    /// The sessions mirrored now.
    public var sessions: [String] { started }

    /// Takes event number `seq` of the stream, produced at `at` (ms since 1970) by fleet instance `instance` (`nil`
    /// for flowd alone).
    public mutating func take(_ event: InspectionEvent, seq: Int, at: Int64, instance: String? = nil) {
        guard let session = event.session else { return }
        if InspectionKind(event.kind) == .sessionStarted {
            start(session, seq: seq, at: at, instance: instance)
            return
        }
        mirrors[session]?.take(event, seq: seq, at: at, instance: instance)
    }

    /// Events were missed (the stream skipped some, or flowd went away): no mirror can go on.
    public mutating func lost(at seq: Int, because why: String) {
        for session in started {
            mirrors[session]?.stop(at: seq, why)
        }
    }

    /// The trees just before and just after event `seq` of `session`, or why there are none.
    public func trees(around seq: Int, in session: String) -> Result<TreesAround, MirrorGap> {
        guard let mirror = mirrors[session] else {
            return .failure(
                MirrorGap(
                    "flowctl mirrors only the sessions it saw start, the last \(Self.maxSessions) of them: this one started before flowctl watched, or \(Self.maxSessions) others started since"
                )
            )
        }
        guard seq >= mirror.startSeq else {
            return .failure(MirrorGap("the event is older than the session flowctl saw start"))
        }
        return mirror.trees(around: seq)
    }

    private mutating func start(_ session: String, seq: Int, at: Int64, instance: String?) {
        if mirrors[session] != nil {
            started.removeAll { $0 == session }
        }
        mirrors[session] = SessionMirror(
            session: SessionID(session),
            seq: seq,
            at: at,
            instance: instance,
            specification: specification,
            capacity: Self.treesPerSession
        )
        started.append(session)
        guard started.count > Self.maxSessions else { return }
        // A mirror that stopped goes first (it only answers for the past), then the one that started first.
        let index = started.firstIndex { mirrors[$0]?.stopped != nil } ?? 0
        mirrors[started.remove(at: index)] = nil
    }
}

/// A session's trees around one of its events, from its mirror.
public struct TreesAround: Sendable, Hashable {
    /// The number of the event that stood for the input the event belongs to (the session's start, a step, a
    /// report...): every event of one input has the same trees.
    public var input: Int
    /// The tree before that input; `nil` before the session's start.
    public var before: JSONValue?
    /// The tree after it.
    public var after: JSONValue

    /// The feed's `treesAround` message for event `seq` of `session`.
    public func message(session: String, seq: Int) -> JSONValue {
        [
            "type": "treesAround", "session": .string(session), "seq": .int(seq), "exact": true,
            "input": .int(input), "before": before ?? .null, "after": after,
        ]
    }
}

/// Why an event has no mirrored trees.
public struct MirrorGap: Error, Sendable, Hashable {
    public var reason: String

    /// A gap for this reason.
    public init(_ reason: String) {
        self.reason = reason
    }

    /// No flowd is watched (`--offline`): only recordings have trees.
    public static let offline = MirrorGap("flowctl web runs offline: no live session is mirrored")

    /// The feed's `treesAround` message for event `seq` of `session`: not exact, and why.
    public func message(session: String, seq: Int) -> JSONValue {
        ["type": "treesAround", "session": .string(session), "seq": .int(seq), "exact": false, "why": .string(reason)]
    }
}
