import FlowCore
import FlowInspector
import FlowSpec
import FlowWire

/// One session of flowd mirrored in an engine of this process, from the session's start, by the inputs the
/// inspection stream shows (steps, deep links, reports, session data, presenters lost, guards' answers) given in
/// flowd's order and at flowd's times. It keeps its tree after each input, by the number of the event that stood
/// for the input, and checks itself against everything flowd published for the session: each event the engine made,
/// in order and of the same kind, each batch of commands with the same commands, each step's fate, each report
/// refused or taken. It stops at the first difference (a flow file or limits other than flowd's, the session
/// ending or moving to another fleet instance, anything flowd did that the stream does not show as an input): the
/// trees it kept before stay, and none after.
struct SessionMirror: Sendable {
    /// The tree after an input, by the number of the event that stood for it (the session's start, a step...).
    struct Entry: Sendable {
        var seq: Int
        var tree: JSONValue
    }

    let session: SessionID
    /// The number of the session's `sessionStarted` event: nothing earlier is known.
    let startSeq: Int
    private(set) var entries: [Entry] = []
    /// Why the mirror stopped, and at which event: later events have no tree from it.
    private(set) var stopped: (seq: Int, why: String)?
    private(set) var ended = false

    private var engine: FlowEngine
    private let replay: OfflineReplay
    private var recorder = Recorder(startedAt: 0)
    private var lastTree: SessionTree?
    /// flowd's token of a step or deep link → the mirror's, and each side's fate once known (compared when both are).
    private var tokens: [Int: StepToken] = [:]
    /// The event that stood for each of the mirror's steps still to compare.
    private var inputOf: [StepToken: Int] = [:]
    private var mirrorFates: [StepToken: WireFate] = [:]
    private var flowdFates: [StepToken: WireFate] = [:]
    /// The mirror's guard questions in the order it asked them, not yet matched with flowd's; flowd's → the mirror's.
    private var unmatchedQuestions: [UInt64] = []
    private var questions: [Int: UInt64] = [:]
    /// What the mirror's engine published and flowd's stream has not shown yet, in order: an event's kind, or a batch
    /// of commands (its presenter and commands, as the COMMANDS body says them).
    private var expected: [Expected] = []
    private var expectedHead = 0
    /// The fleet instance whose stream started the session (`nil` for flowd alone).
    let instance: String?
    private let capacity: Int

    private enum Expected: Equatable {
        case event(String)
        case commands(presenter: String, commands: JSONValue)
    }

    /// Starts the mirror of `session`, whose `sessionStarted` event is number `seq`, produced at `at`.
    init(
        session: SessionID,
        seq: Int,
        at: Int64,
        instance: String?,
        specification: FlowSpecification,
        capacity: Int
    ) {
        self.session = session
        self.instance = instance
        startSeq = seq
        self.capacity = capacity
        replay = OfflineReplay(specification: specification)
        engine = FlowEngine(registry: specification.registry, now: EngineTime(milliseconds: at))
        do {
            let effects = try specification.startSession(session, in: &engine)
            note(effects)
            keepTree(after: seq)
            echo(InspectionEvent(kind: "sessionStarted", session: session.rawValue, fields: [:]), seq: seq)
        } catch {
            stop(at: seq, "the flow file does not start the session here: \(error.message)")
        }
    }

    /// The trees just before and just after event `seq`, or why there are none.
    func trees(around seq: Int) -> Result<TreesAround, MirrorGap> {
        if let stopped, seq >= stopped.seq {
            return .failure(
                MirrorGap("flowctl's mirror of the session stopped at event #\(stopped.seq): \(stopped.why)")
            )
        }
        guard let first = entries.first, seq >= first.seq else {
            return .failure(
                MirrorGap("flowctl keeps the trees of the session's last \(capacity) inputs: this event is older")
            )
        }
        // The last entry at or before the event is the tree after the input it belongs to; the one before it, the
        // tree before.
        var low = 0
        var high = entries.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if entries[middle].seq <= seq { low = middle } else { high = middle - 1 }
        }
        let after = entries[low]
        let before = low > 0 ? entries[low - 1] : nil
        if before == nil, after.seq != startSeq {
            return .failure(
                MirrorGap("flowctl keeps the trees of the session's last \(capacity) inputs: this event is older")
            )
        }
        return .success(TreesAround(input: after.seq, before: before?.tree, after: after.tree))
    }

    /// Takes the session's event number `seq`, produced at `at` (ms since 1970), from fleet instance `instance`.
    mutating func take(_ event: InspectionEvent, seq: Int, at: Int64, instance: String?) {
        guard stopped == nil, !ended else { return }
        guard instance == self.instance else {
            return stop(
                at: seq,
                "the session moved to fleet instance \(instance ?? "?"), which restored it without saying what it changed"
            )
        }
        // Time passes for the mirror as it did for flowd: deep links that waited too long, guards that did not answer.
        let passed = engine.advanceTime(to: EngineTime(milliseconds: max(at, engine.now.milliseconds)))
        if !passed.isEmpty {
            note(passed)
            keepTree(after: seq, changedOnly: true)
        }
        let kind = InspectionKind(event.kind)
        switch kind {
        case .visibilityReported, .sessionData, .unregistered:
            // flowd's own events, not the engine's: an input (a report, data, a presenter gone), or nothing to mirror.
            input(event, seq: seq, at: at)
            return
        case .registered, .error, .guardMissing:
            return
        case .stepReceived, .deepLinkReceived:
            input(event, seq: seq, at: at)
        case .guardAnswered:
            answer(event.fields, seq: seq)
        case .stepFate:
            flowdFate(event.fields)
        case .guardAsked:
            guard let question = event.fields["question"]?.intValue, !unmatchedQuestions.isEmpty else {
                return stop(at: entries.last?.seq ?? seq, "flowd asked a guard a question the mirror did not ask")
            }
            questions[question] = unmatchedQuestions.removeFirst()
        case .commands:
            recorder.learn(from: event, session: session.rawValue)
        default:
            break
        }
        guard stopped == nil else { return }
        echo(event, seq: seq)
        if kind == .sessionEnded {
            ended = true
        }
    }

    /// Checks one of flowd's engine events (or command batches) against the next the mirror's engine published.
    private mutating func echo(_ event: InspectionEvent, seq: Int) {
        let published: Expected =
            InspectionKind(event.kind) == .commands
            ? .commands(
                presenter: event.fields["presenter"]?.stringValue ?? "",
                commands: event.fields["commands"] ?? .null
            )
            : .event(event.kind)
        // Nothing more expected: what the last input caused all matched, and this comes of something else.
        guard expectedHead < expected.count else {
            return stop(
                at: seq,
                "flowd published \(event.kind) where the mirror had nothing more: something the stream shows no input for (the session ended or expired, a limit or option of flowd's, a flow file other than flowctl's)"
            )
        }
        let mine = expected[expectedHead]
        expectedHead += 1
        if expectedHead == expected.count {
            expected.removeAll(keepingCapacity: true)
            expectedHead = 0
        }
        guard mine == published else {
            let said = { (item: Expected) -> String in
                switch item {
                case .event(let kind): kind
                case .commands(let presenter, let commands): "commands to \(presenter) \(commands)"
                }
            }
            return stop(
                at: entries.last?.seq ?? seq,
                "flowd published \(said(published).prefix(200)) where the mirror published \(said(mine).prefix(200)) (a flow file or limits other than flowd's?)"
            )
        }
    }

    /// An event that stands for an input (a step from a stepper or a screen, a deep link, a report...) is given to
    /// the mirror's engine as flowd was given it; other events are consequences, which the mirror makes itself.
    private mutating func input(_ event: InspectionEvent, seq: Int, at: Int64) {
        guard let action = recorder.action(for: event, sentAt: at) else {
            if event.inspectionKind == .stepReceived, event.fields["source"]?.objectValue?["presentable"] != nil {
                stop(at: seq, "a screen's step came from a presenter the mirror does not know")
            }
            return
        }
        let flowdRefused = action.fate == .refused
        do {
            let (effects, token) = try replay.apply(action, to: &engine, session: session)
            if flowdRefused {
                return stop(
                    at: seq,
                    "flowd refused \(action.kind.rawValue) (\(action.reason ?? "?")); the mirror took it"
                )
            }
            if let token, let flowdToken = event.fields["token"]?.intValue {
                tokens[flowdToken] = token
                inputOf[token] = seq
            }
            note(effects)
            keepTree(after: seq)
        } catch {
            if !flowdRefused {
                stop(at: seq, "the mirror refused \(action.kind.rawValue) (\(error.message)); flowd took it")
            }
        }
    }

    private mutating func answer(_ fields: JSONObject, seq: Int) {
        guard let flowdQuestion = fields["question"]?.intValue,
            let question = questions.removeValue(forKey: flowdQuestion)
        else {
            return stop(at: seq, "flowd answered a guard question the mirror did not ask")
        }
        let allowed = fields["allowed"]?.boolValue ?? false
        do {
            note(try engine.answerGuard(question, allowed: allowed, session: session))
            keepTree(after: seq)
        } catch {
            // A question that timed out in flowd timed out in the mirror too, when time passed above.
            if fields["timedOut"]?.boolValue != true {
                stop(at: seq, "the mirror could not take a guard's answer: \(error.message)")
            }
        }
    }

    /// The fates the mirror decided and the questions it asked.
    private mutating func note(_ effects: Effects) {
        for event in effects.events {
            expected.append(.event(event.inspectionKind.rawValue))
        }
        for batch in effects.batches {
            expected.append(.commands(presenter: batch.presenter.rawValue, commands: Self.commands(of: batch)))
        }
        unmatchedQuestions += effects.questions.map(\.id)
        // The fates of the inputs' steps (the flows' own steps are checked by their events' order).
        for (_, token, fate) in effects.fates where inputOf[token] != nil {
            mirrorFates[token] = WireFate(fate)
            compareFates(of: token)
        }
    }

    /// A batch's commands as flowd's COMMANDS body writes them.
    private static func commands(of batch: CommandBatch) -> JSONValue {
        let message = CommandsMessage(
            presenter: batch.presenter.rawValue,
            sequence: 0,
            epoch: "",
            commands: batch.commands,
            flow: batch.flow,
            step: batch.step
        )
        return (try? JSONValue(parsing: WireCodec().body(of: message)))?.objectValue?["commands"] ?? .null
    }

    private mutating func flowdFate(_ fields: JSONObject) {
        guard let flowdToken = fields["token"]?.intValue, let token = tokens.removeValue(forKey: flowdToken) else {
            return
        }
        flowdFates[token] = WireFate(
            accepted: fields["accepted"]?.boolValue ?? false,
            flows: [],
            reason: fields["reason"]?.stringValue
        )
        compareFates(of: token)
    }

    private mutating func compareFates(of token: StepToken) {
        guard let flowd = flowdFates[token], let mirror = mirrorFates[token] else { return }
        flowdFates[token] = nil
        mirrorFates[token] = nil
        let input = inputOf.removeValue(forKey: token)
        if flowd.accepted != mirror.accepted || (!flowd.accepted && flowd.reason != mirror.reason) {
            let said = { (fate: WireFate) in fate.accepted ? "accepted" : "dropped (\(fate.reason ?? "?"))" }
            stop(
                at: input ?? entries.last?.seq ?? startSeq,
                "a step was \(said(flowd)) by flowd and \(said(mirror)) by the mirror"
            )
        }
    }

    /// Keeps the tree after the input that event `seq` stood for — the same tree again when the input changed
    /// nothing (a dropped step: its trees before and after are equal) — or after time passed, when that changed it.
    private mutating func keepTree(after seq: Int, changedOnly: Bool = false) {
        guard let inspection = engine.inspect(session) else { return }
        let tree = SessionTree(inspection)
        if tree == lastTree, let last = entries.last {
            if !changedOnly {
                entries.append(Entry(seq: seq, tree: last.tree))  // the same storage, not a copy
            }
        } else {
            lastTree = tree
            entries.append(Entry(seq: seq, tree: (try? FlowJSON.value(of: tree)) ?? .null))
        }
        // Let go in chunks of half the capacity: no array moved at every input.
        if entries.count >= capacity + capacity / 2 {
            entries.removeFirst(entries.count - capacity)
        }
    }

    mutating func stop(at seq: Int, _ why: String) {
        if stopped == nil {
            stopped = (seq, why)
        }
    }
}
