import FlowBusTesting
import FlowCore
import FlowSpec
import FlowWebInspector
import FlowWire
import Foundation
import Testing

/// Sessions mirrored from the inspection stream: an engine in the test plays flowd (its events published as flowd
/// publishes them, numbered as flowctl numbers them), and every event's trees from the mirror are those flowd's
/// engine had just before and just after the input the event belongs to — however the events are batched. A mirror
/// that sees a fate flowd did not decide, a session it did not see start, and an event older than the trees it
/// keeps each say why they have no trees.
@Suite struct SessionMirrorsTests {
    /// flowd's side: an engine running the demo's flows, and the stream it publishes.
    struct Flowd {
        let specification: FlowSpecification
        var engine: FlowEngine
        var stream: [(seq: Int, event: InspectionEvent, at: Int64)] = []
        var now: Int64 = 1_000
        var sequences: [String: UInt64] = [:]

        init() throws {
            specification = try FlowSpecification.load(contentsOf: demoFlows)
            engine = FlowEngine(registry: specification.registry, now: EngineTime(milliseconds: now))
        }

        var tree: JSONValue {
            engine.inspect("kiosk").flatMap { try? FlowJSON.value(of: SessionTree($0)) } ?? .null
        }

        /// Publishes `effects` as flowd does (the engine's events, then the batches); returns the first event's number.
        @discardableResult
        mutating func publish(_ effects: Effects, before: [InspectionEvent] = []) -> Int {
            let first = stream.count + 1
            for event in before {
                stream.append((stream.count + 1, event, now))
            }
            for event in effects.events {
                let published = InspectionEvent(
                    kind: event.inspectionKind.rawValue,
                    session: event.session.rawValue,
                    fields: event.inspectionFields
                )
                stream.append((stream.count + 1, published, now))
            }
            for batch in effects.batches {
                let sequence = (sequences[batch.presenter.rawValue] ?? 0) + 1
                sequences[batch.presenter.rawValue] = sequence
                let message = CommandsMessage(
                    presenter: batch.presenter.rawValue,
                    sequence: sequence,
                    epoch: "test",
                    commands: batch.commands,
                    flow: batch.flow,
                    step: batch.step
                )
                let fields = (try? JSONValue(parsing: WireCodec().body(of: message)))?.objectValue ?? [:]
                stream.append(
                    (stream.count + 1, InspectionEvent(kind: "commands", session: "kiosk", fields: fields), now)
                )
            }
            return first
        }

        mutating func start() throws -> Int {
            publish(try specification.startSession("kiosk", in: &engine))
        }

        mutating func step(_ name: String, _ parameters: JSONObject = [:], from source: StepSource) -> Int {
            now += 7
            _ = engine.advanceTime(to: EngineTime(milliseconds: now))
            return publish(engine.receive(Step(name, parameters), from: source, session: "kiosk").effects)
        }

        mutating func report(visible screens: [PresentableID], by presenter: String) throws -> Int {
            now += 3
            _ = engine.advanceTime(to: EngineTime(milliseconds: now))
            let reported = InspectionEvent(
                kind: "visibilityReported",
                session: "kiosk",
                fields: [
                    "presenter": .string(presenter), "visibility": "visible",
                    "presentables": .array(screens.map { .int(Int($0.rawValue)) }),
                ]
            )
            let effects = try engine.report(.visible, of: screens, by: PresenterID(presenter), session: "kiosk")
            return publish(effects, before: [reported])
        }
    }

    func mirrored(_ flowd: Flowd, with specification: FlowSpecification? = nil) throws -> SessionMirrors {
        var mirrors = SessionMirrors(specification: specification ?? flowd.specification)
        for (seq, event, at) in flowd.stream {
            mirrors.take(event, seq: seq, at: at)
        }
        return mirrors
    }

    func gap(_ mirrors: SessionMirrors, at seq: Int) -> String? {
        if case .failure(let gap) = mirrors.trees(around: seq, in: "kiosk") { gap.reason } else { nil }
    }

    @Test func everyEventHasTheTreesOfItsInputExactly() throws {
        var flowd = try Flowd()
        var inputs: [(seq: Int, before: JSONValue?, after: JSONValue)] = []
        inputs.append((try flowd.start(), nil, flowd.tree))
        var before = flowd.tree
        let dashboard = flowd.step("dashboardIsRequired", from: .stepper("app"))
        inputs.append((dashboard, before, flowd.tree))
        before = flowd.tree
        let dropped = flowd.step("settingsAreComplete", from: .stepper("app"))
        inputs.append((dropped, before, flowd.tree))
        let screens = (flowd.engine.inspect("kiosk").map(SessionTree.init)?.screens ?? []).map(\.id)
        before = flowd.tree
        inputs.append((try flowd.report(visible: screens, by: "main"), before, flowd.tree))
        #expect(flowd.stream.count > 12, "several events to each input, as one batch would hold them")

        let mirrors = try mirrored(flowd)
        for (seq, event, _) in flowd.stream {
            // The input an event belongs to: the last input at or before it.
            let input = try #require(inputs.last { $0.seq <= seq })
            let trees = try mirrors.trees(around: seq, in: "kiosk").get()
            #expect(trees.after == input.after, "the tree after #\(seq) (\(event.kind))")
            #expect(trees.input == input.seq, "#\(seq) (\(event.kind)) belongs to #\(input.seq)")
            #expect(trees.before == input.before, "the tree before #\(seq) (\(event.kind))")
        }
        let started = try mirrors.trees(around: 1, in: "kiosk").get()
        #expect(started.before == nil, "nothing before the session's start")
        let navigated = try mirrors.trees(around: dashboard, in: "kiosk").get()
        #expect(navigated.before != navigated.after, "the dashboard's step changed the tree")
        let drop = try mirrors.trees(around: dropped, in: "kiosk").get()
        #expect(drop.before == drop.after, "a dropped step changed nothing")
    }

    @Test func aFateFlowdDidNotDecideStopsTheMirrorThere() throws {
        var flowd = try Flowd()
        _ = try flowd.start()
        let dashboard = flowd.step("dashboardIsRequired", from: .stepper("app"))
        // The stream says the step was dropped; the mirror's engine accepted it.
        for index in flowd.stream.indices where flowd.stream[index].event.kind == "stepFate" {
            if flowd.stream[index].seq >= dashboard {
                flowd.stream[index].event.fields["accepted"] = false
                flowd.stream[index].event.fields["reason"] = "notVisible"
            }
        }
        let mirrors = try mirrored(flowd)
        #expect((try? mirrors.trees(around: 1, in: "kiosk").get()) != nil, "the trees before the difference stay")
        guard case .failure(let gap) = mirrors.trees(around: dashboard, in: "kiosk") else {
            Issue.record("the mirror gave trees after a fate it did not decide")
            return
        }
        #expect(gap.reason.contains("dropped (notVisible) by flowd and accepted by the mirror"))
    }

    @Test func aSessionNotSeenStartingHasNoTrees() throws {
        var flowd = try Flowd()
        _ = try flowd.start()
        let step = flowd.step("dashboardIsRequired", from: .stepper("app"))
        var mirrors = SessionMirrors(specification: flowd.specification)
        for (seq, event, at) in flowd.stream where seq >= step {
            mirrors.take(event, seq: seq, at: at)
        }
        guard case .failure(let gap) = mirrors.trees(around: step, in: "kiosk") else {
            Issue.record("a session that started before the mirror has trees")
            return
        }
        #expect(gap.reason.contains("only the sessions it saw start"))
    }

    @Test func eventsMissedStopEveryMirror() throws {
        var flowd = try Flowd()
        _ = try flowd.start()
        var mirrors = try mirrored(flowd)
        mirrors.lost(at: flowd.stream.count + 1, because: "flowctl missed 3 events of flowd's stream")
        let step = flowd.step("dashboardIsRequired", from: .stepper("app"))
        for (seq, event, at) in flowd.stream where seq >= step {
            mirrors.take(event, seq: seq, at: at)
        }
        guard case .failure(let gap) = mirrors.trees(around: step, in: "kiosk") else {
            Issue.record("a mirror that missed events has trees after them")
            return
        }
        #expect(gap.reason.contains("missed 3 events"))
        #expect((try? mirrors.trees(around: 1, in: "kiosk").get()) != nil)
    }

    @Test func aFlowFileOtherThanFlowdsStopsTheMirrorAtTheFirstDifference() throws {
        var flowd = try Flowd()
        _ = try flowd.start()
        let dashboard = flowd.step("dashboardIsRequired", from: .stepper("app"))
        // flowctl's copy of the flow file shows another screen for the wishlist's first step.
        let yaml = try String(contentsOfFile: demoFlows, encoding: .utf8)
        let other = yaml.replacingOccurrences(of: "- show: WishlistTable", with: "- show: WatchedCollection")
            .replacingOccurrences(of: "    WishlistTable: [movieIsPicked, settingsAreRequired]\n", with: "")
        #expect(other != yaml)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("other-\(UUID()).yaml").path
        try other.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let mirrors = try mirrored(flowd, with: try FlowSpecification.load(contentsOf: file))
        #expect(gap(mirrors, at: 1) == nil, "the start is the same")
        let why = try #require(gap(mirrors, at: dashboard), "the step whose commands differ has no trees")
        #expect(why.contains("where the mirror published commands to main"), "\(why)")
    }

    @Test func aSessionThatEndsOrMovesToAnotherInstanceStopsItsMirror() throws {
        var flowd = try Flowd()
        _ = try flowd.start()
        let dashboard = flowd.step("dashboardIsRequired", from: .stepper("app"))
        let ending = flowd.publish(flowd.engine.endSession("kiosk"))
        let ended = try mirrored(flowd)
        #expect(gap(ended, at: dashboard) == nil, "the trees before the end stay")
        #expect(gap(ended, at: ending)?.contains("where the mirror had nothing more") == true)

        var moved = SessionMirrors(specification: flowd.specification)
        for (seq, event, at) in flowd.stream where seq < ending {
            moved.take(event, seq: seq, at: at, instance: seq < dashboard ? "a" : "b")
        }
        #expect(gap(moved, at: 1) == nil)
        #expect(gap(moved, at: dashboard)?.contains("moved to fleet instance b") == true)
    }

    @Test func theMirrorsBoundsHold() throws {
        // The trees of a session's last `treesPerSession` inputs: an event older than those has none, said so.
        var flowd = try Flowd()
        _ = try flowd.start()
        var inputs: [Int] = []
        for _ in 0..<(SessionMirrors.treesPerSession + SessionMirrors.treesPerSession / 2 + 10) {
            inputs.append(flowd.step("settingsAreComplete", from: .stepper("app")))  // dropped: changes nothing
        }
        let mirrors = try mirrored(flowd)
        #expect(gap(mirrors, at: inputs.last ?? 0) == nil, "the newest input has its trees")
        #expect(gap(mirrors, at: inputs[5])?.contains("this event is older") == true, "the oldest are let go")

        // The last `maxSessions` sessions that started: one more lets the oldest mirror go.
        var many = SessionMirrors(specification: flowd.specification)
        for index in 0...SessionMirrors.maxSessions {
            many.take(
                InspectionEvent(kind: "sessionStarted", session: "s\(index)", fields: [:]),
                seq: index + 1,
                at: 1_000
            )
        }
        #expect(many.sessions.count == SessionMirrors.maxSessions && !many.sessions.contains("s0"))
        if case .failure(let gap) = many.trees(around: 1, in: "s0") {
            #expect(gap.reason.contains("only the sessions it saw start"))
        } else {
            Issue.record("a session let go still has trees")
        }
        #expect((try? many.trees(around: 2, in: "s1").get()) != nil)
    }
}
