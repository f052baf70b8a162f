import FlowBusTesting
import FlowCore
import FlowSpec
import FlowStore
import FlowWire
import Foundation
import Logging
import Testing

@testable import FlowDaemonCore

/// The coordinator's journal and snapshots, written to a real SQLite file and read back: a coordinator restored
/// from them holds every session exactly as the one that wrote them, and goes on as it would have.
@Suite struct DurabilityTests {
    /// A durable coordinator driven as peers would, every turn written to a real store.
    struct DurableBus {
        var bus: Bus
        let store: SQLiteStore
        let scratch = ScratchDirectory("store")

        init(flows: String? = nil, configure: (inout DaemonConfiguration) -> Void = { _ in }) throws {
            bus = try Bus(flows: flows, durable: true, configure: configure)
            store = try SQLiteStore(path: scratch.path + "/flowd.db", durability: .os)
        }

        /// Sends a message and writes the turn, as flowd does before anything leaves.
        @discardableResult
        mutating func send(_ message: Message, from peer: String, session: String? = "kiosk") throws -> [Envelope] {
            let replies = bus.send(message, from: peer, session: session)
            try store.commit(bus.coordinator.takeStoreGroup())
            return replies
        }

        @discardableResult
        mutating func hello(_ role: Role, _ id: String, name: String, session: String? = "kiosk") throws -> [Envelope] {
            try send(.hello(Hello(role: role, id: id, name: name, session: session)), from: id, session: session)
        }

        mutating func tick(by milliseconds: Int64) throws -> [Outgoing] {
            bus.now += milliseconds
            let out = bus.coordinator.tick(now: bus.now)
            bus.sent += out
            try store.commit(bus.coordinator.takeStoreGroup())
            return out
        }

        /// A coordinator restored from what was written.
        func restored() throws -> (Coordinator, RestoreSummary) {
            // The same store: it holds its file alone (a second store is refused).
            try Coordinator.restoring(
                try store.load(),
                specification: bus.specification,
                configuration: bus.configuration,
                epoch: "test",
                now: bus.now,
                logger: Logger(label: "test")
            )
        }

        /// Whether every session of `other` is exactly as in the coordinator that wrote the store.
        func holdsTheSameSessions(as other: Coordinator) -> Bool {
            bus.coordinator.sessions == other.sessions
                && bus.coordinator.sessions.allSatisfy {
                    bus.coordinator.sessionRecord(of: $0) == other.sessionRecord(of: $0)
                }
        }
    }

    /// The demo's first steps in two sessions: registrations, steps from a stepper and from a screen, visibility
    /// reports, session data, a deep link, a refused step, a resent step.
    private func demoJourney(_ durable: inout DurableBus) throws {
        for session in ["kiosk", "lobby"] {
            try durable.hello(.presenter, "\(session)/main", name: "main", session: session)
            try durable.hello(.stepper, "\(session)/app", name: "app", session: session)
        }
        try durable.send(.step(StepMessage(step: Step("onboardingIsRequired"), sequence: 1)), from: "kiosk/app")
        let shown = durable.bus.commands(for: "main").flatMap(\.commands).flatMap(\.placed).map(\.id)
        try durable.send(
            .visibility(VisibilityReport(visibility: .visible, presentables: shown)),
            from: "kiosk/main"
        )
        let intro = try #require(
            durable.bus.commands(for: "main").flatMap(\.commands).flatMap(\.placed).first {
                $0.name == "OnboardingIntro"
            }?.id
        )
        try durable.send(
            .step(StepMessage(step: Step("introIsComplete"), sequence: 1, presentable: intro)),
            from: "kiosk/main"
        )
        try durable.send(.sessionData(SessionDataMessage(key: "permissions", value: ["about"])), from: "kiosk/app")
        try durable.send(.step(StepMessage(step: Step("noSuchStep"), sequence: 2)), from: "kiosk/app")
        try durable.send(.step(StepMessage(step: Step("onboardingIsRequired"), sequence: 1)), from: "kiosk/app")
        try durable.send(
            .deepLink(DeepLinkMessage(path: [Step("dashboardIsRequired")], sequence: 1)),
            from: "lobby/app",
            session: "lobby"
        )
        try durable.send(
            .step(StepMessage(step: Step("movieIsPicked", ["withId": 7]), sequence: 2)),
            from: "lobby/app",
            session: "lobby"
        )
    }

    @Test(arguments: [1, 3, 1000])
    func aRestoredCoordinatorHoldsEverySessionExactly(snapshotEvery: Int) throws {
        var durable = try DurableBus { $0.snapshotEvery = snapshotEvery }
        try demoJourney(&durable)
        let (restored, summary) = try durable.restored()
        let same = durable.holdsTheSameSessions(as: restored)
        #expect(same)
        #expect(summary.sessions == 2)
        // Written as snapshots, as journal entries, or both.
        if snapshotEvery == 1000 {
            #expect(summary.snapshots == 0)
            #expect(summary.entries == 9)
        } else {
            #expect(summary.snapshots == 2)
        }
        #expect(restored.counters.sessionsRestored == 2)
    }

    @Test func aRestoredCoordinatorGoesOnAsTheOneThatWroteIt() throws {
        var durable = try DurableBus()
        try demoJourney(&durable)
        let (restored, _) = try durable.restored()
        var after = durable.bus
        after.coordinator = restored
        after.sent = []
        // A step resent with an acknowledged sequence gets its original fate and is not applied again.
        let original = durable.bus.replies(durable.bus.sent, to: "lobby/app").compactMap { envelope in
            if case .stepAck(let ack) = envelope.message, ack.sequence == 1 { ack.fate } else { nil }
        }.first
        _ = after.hello(.stepper, "lobby/app", name: "app", session: "lobby")
        let resent = after.send(
            .deepLink(DeepLinkMessage(path: [Step("dashboardIsRequired")], sequence: 1)),
            from: "lobby/app",
            session: "lobby"
        )
        #expect(fate(resent) == original)
        #expect(after.commands(for: "main", session: "lobby").isEmpty)
        // The numbering goes on: WELCOME says the last sequence, and the next step is applied.
        guard case .welcome(let welcome) = after.hello(.stepper, "kiosk/app", name: "app").first?.message else {
            Issue.record("no WELCOME")
            return
        }
        #expect(welcome.lastSequence == 2)
        #expect(
            fate(after.send(.step(StepMessage(step: Step("dashboardIsRequired"), sequence: 3)), from: "kiosk/app"))
                != nil
        )
        // Command batches continue the presenter's sequence: no presenter sees a sequence twice.
        let before = durable.bus.commands(for: "main").map(\.sequence).max() ?? 0
        #expect(after.commands(for: "main").map(\.sequence).min() == before + 1)
    }

    @Test func aRestartHidesThePresentersScreensUntilTheyComeBack() throws {
        var durable = try DurableBus()
        try demoJourney(&durable)
        var (restored, _) = try durable.restored()
        let visibleBefore = restored.engine.inspect("kiosk")?.visibility.values.filter { $0 == .visible }.count ?? 0
        #expect(visibleBefore > 0)
        _ = restored.restarted()
        #expect(restored.engine.inspect("kiosk")?.visibility.values.allSatisfy { $0 != .visible } == true)
        // That change is journaled like any other: restored again, the screens are hidden there too.
        try durable.store.commit(restored.takeStoreGroup())
        let (again, _) = try durable.restored()
        #expect(again.sessionRecord(of: "kiosk") == restored.sessionRecord(of: "kiosk"))
    }

    /// A user switches tabs in the presenter, which reports the other tab visible: flowd's tree follows, and the
    /// snapshot a presenter rebuilds from after a restart selects the same tab.
    @Test func theTabTheUserSelectedComesBackAfterARestart() throws {
        var durable = try DurableBus()
        try durable.hello(.presenter, "kiosk/main", name: "main")
        try durable.hello(.stepper, "kiosk/app", name: "app")
        try durable.send(.step(StepMessage(step: Step("dashboardIsRequired"), sequence: 1)), from: "kiosk/app")
        let placed = durable.bus.commands(for: "main").flatMap(\.commands).flatMap(\.placed)
        let watched = try #require(placed.first { $0.name == "watched" }?.id)
        let collection = try #require(placed.first { $0.name == "WatchedCollection" }?.id)
        let wishlist = placed.filter { ["wishlist", "WishlistTable"].contains($0.name) }.map(\.id)
        try durable.send(.visibility(VisibilityReport(visibility: .hidden, presentables: wishlist)), from: "kiosk/main")
        try durable.send(
            .visibility(VisibilityReport(visibility: .visible, presentables: [watched, collection])),
            from: "kiosk/main"
        )
        var after = durable.bus
        (after.coordinator, _) = try durable.restored()
        _ = after.hello(.presenter, "kiosk/main", name: "main")
        let answer = after.send(.snapshotRequest(SnapshotRequest(presenter: "main")), from: "kiosk/main")
        guard case .snapshot(let snapshot) = answer.first?.message else {
            Issue.record("no SNAPSHOT: \(answer)")
            return
        }
        let selected = snapshot.commands.compactMap { command -> Int? in
            if case .setTabs(_, _, let selected) = command { selected } else { nil }
        }
        #expect(selected == [1])
    }

    /// Guards and deep links wait for deadlines: restored, they wait for the same deadline, and a question that
    /// waited is asked again.
    @Test func deadlinesAndGuardQuestionsSurviveARestart() throws {
        var durable = try DurableBus(
            flows: guardedAboutFlows
        )
        try durable.hello(.guard, "permissions-guard", name: "permissions", session: nil)
        try durable.hello(.stepper, "kiosk/app", name: "app")
        let askedAt = durable.bus.now
        try durable.send(.step(StepMessage(step: Step("about"), sequence: 1)), from: "kiosk/app")
        _ = try durable.tick(by: 500)
        // Nothing else happens, but a deadline is waited for: the clock is written all the same, so that a restart
        // does not give the guard its whole time again.
        _ = try durable.tick(by: 1_000)
        #expect(try durable.store.load().metadata[StoreKeys.clock] == String(durable.bus.now))
        var after = durable.bus
        (after.coordinator, _) = try durable.restored()
        after.sent = []
        let same = durable.holdsTheSameSessions(as: after.coordinator)
        #expect(same)
        // The guard connects to the restarted flowd, which asks the waiting question again, with its deadline.
        _ = after.hello(.guard, "permissions-guard", name: "permissions", session: nil)
        let asked = after.replies(after.coordinator.restarted(), to: "permissions-guard").compactMap { envelope in
            if case .guardQuestion(let question) = envelope.message { question } else { nil }
        }
        #expect(asked.map(\.deadline) == [askedAt + 2_000])
        // The deadline is the same one: 2 s after the step, 0.5 s from now. Both time out alike.
        _ = try durable.tick(by: 600)
        _ = after.coordinator.tick(now: durable.bus.now)
        #expect(durable.bus.coordinator.sessionRecord(of: "kiosk") == after.coordinator.sessionRecord(of: "kiosk"))
        #expect(
            after.coordinator.engine.inspect("kiosk")?.screens.nodes.values.map(\.description.name).contains("Refused")
                == true
        )
    }

    /// A session that grows (a screen per step) is written whole only once its journal is as large as its last
    /// snapshot: keeping it costs in proportion to what changes, not to its size times the steps.
    @Test func aGrowingSessionIsWrittenWholeLessOftenAsItGrows() throws {
        var durable = try DurableBus(flows: tickerFlows) { $0.snapshotEvery = 1 }
        try durable.hello(.stepper, "kiosk/ticker", name: "ticker")
        var snapshots = 0
        for n in 1...200 {
            durable.bus.send(
                .step(StepMessage(step: Step("tick", ["n": .int(n)]), sequence: UInt64(n))),
                from: "kiosk/ticker"
            )
            let group = durable.bus.coordinator.takeStoreGroup()
            snapshots += group.snapshots.count
            try durable.store.commit(group)
        }
        // With a snapshot per entry it would be 200; growing by a screen a step, a session is written whole again
        // only once its journal is 8 times its last snapshot: the spacing grows with the session.
        #expect(snapshots >= 1 && snapshots <= 3, "\(snapshots) snapshots")
        let (restored, summary) = try durable.restored()
        #expect(summary.snapshots == 1 && summary.entries > 0)
        let same = durable.holdsTheSameSessions(as: restored)
        #expect(same)
    }

    /// A snapshot keeps the outcomes flowd promises to remember, the last `rememberedAcknowledgements` (memory keeps
    /// as many, no more): a snapshot costs what is promised.
    @Test func aSnapshotKeepsTheRememberedOutcomesOnly() throws {
        var durable = try DurableBus(flows: tickerFlows) { $0.rememberedAcknowledgements = 4 }
        _ = durable.bus.hello(.stepper, "kiosk/ticker", name: "ticker", session: "kiosk")
        for n in 1...7 {
            durable.bus.send(
                .step(StepMessage(step: Step("tick", ["n": .int(n)]), sequence: UInt64(n))),
                from: "kiosk/ticker",
                session: "kiosk"
            )
        }
        let key = StepperKey(session: "kiosk", role: .stepper, name: "ticker")
        #expect(durable.bus.coordinator.acknowledgements.steppers[key]?.acknowledgements.count == 4)
        let record = try #require(durable.bus.coordinator.sessionRecord(of: "kiosk"))
        #expect(record.senders.first?.outcomes.map(\.sequence) == [4, 5, 6, 7])
        try durable.store.commit(durable.bus.coordinator.takeStoreGroup(everything: true))
        let (restored, _) = try durable.restored()
        #expect(restored.acknowledgements.steppers[key]?.acknowledgements.inOrder.map(\.sequence) == [4, 5, 6, 7])
    }

    /// Under load a turn takes many steps: the entries of one session that follow each other share a record (a
    /// row), a line each, and the order across sessions is kept. Restored, the sessions are exactly as they were.
    @Test func aTurnsEntriesOfOneSessionShareARecordAndReadBackInOrder() throws {
        var durable = try DurableBus(flows: tickerFlows) { $0.snapshotEvery = 1_000 }
        _ = durable.bus.hello(.stepper, "kiosk/ticker", name: "ticker", session: "kiosk")
        _ = durable.bus.hello(.stepper, "lobby/ticker", name: "ticker", session: "lobby")
        try durable.store.commit(durable.bus.coordinator.takeStoreGroup())
        // One turn: three steps of kiosk, two of lobby, one of kiosk.
        let order = ["kiosk", "kiosk", "kiosk", "lobby", "lobby", "kiosk"]
        var sequences: [String: UInt64] = [:]
        for (index, session) in order.enumerated() {
            sequences[session, default: 0] += 1
            durable.bus.send(
                .step(StepMessage(step: Step("tick", ["n": .int(index)]), sequence: sequences[session, default: 0])),
                from: "\(session)/ticker",
                session: session
            )
        }
        let group = durable.bus.coordinator.takeStoreGroup()
        #expect(group.entries.map(\.session) == ["kiosk", "lobby", "kiosk"])
        #expect(group.entries.map { $0.bytes.split(separator: UInt8(ascii: "\n")).count } == [3, 2, 1])
        #expect(group.entries.map(\.entryBytes.count) == [3, 2, 1])
        #expect(group.holdsEntries(atMost: 6) && !group.holdsEntries(atMost: 5))
        try durable.store.commit(group)
        let (restored, summary) = try durable.restored()
        #expect(summary.entries == 2 + order.count)
        #expect(durable.holdsTheSameSessions(as: restored))
        // The steps replayed in their order: each session's sender numbering goes on from the last one taken.
        for session in ["kiosk", "lobby"] {
            let key = StepperKey(session: SessionID(session), role: .stepper, name: "ticker")
            #expect(
                restored.acknowledgements.steppers[key]?.lastSequence
                    == durable.bus.coordinator.acknowledgements.steppers[key]?.lastSequence
            )
        }
    }

    /// A step's entry is written by hand, the others by `Codable`: each reads back as what was written.
    @Test func journalEntriesReadBackAsWritten() throws {
        let key = StepperKey(session: "kiosk-7/ü", role: .presenter, name: "main \"screen\"")
        let sender = StepSender(peer: "kiosk-7/main", correlation: 41, sentAt: 1_790_000_000_123)
        let parameters: JSONObject = ["withId": 7, "title": "Amélie", "nested": ["a": [1, 2.5, nil, true]]]
        let inputs: [JournalInput] = [
            .step(
                stepper: key,
                sequence: 9,
                step: Step("movieIsPicked", parameters),
                source: .presentable(PresentableID(4)),
                sender: sender
            ),
            .step(stepper: key, sequence: 10, step: Step("home"), source: .stepper("app"), sender: sender),
            .step(
                stepper: key,
                sequence: UInt64(Int64.max),
                step: Step("home"),
                source: .stepper("app"),
                sender: sender
            ),
            .deepLink(stepper: key, sequence: 3, path: [Step("a"), Step("b", ["x": 1])], sender: sender),
            .refused(stepper: key, sequence: 4, refusal: StepRefusal(code: .unknownStep, message: "no step 'x'")),
            .visibility(presenter: "main", visibility: .hidden, presentables: [PresentableID(1), PresentableID(2)]),
            .sessionData(key: "permissions", value: nil), .sessionData(key: "k", value: ["about"]),
            .guardAnswer(question: 2, allowed: true), .timePassed, .sessionStarted, .inspectorLeft(name: "ctl"),
            .presenterLost(presenter: "main"),
        ]
        for input in inputs {
            let entry = JournalEntry(session: "kiosk-7/ü", time: 1_000, wall: 1_790_000_000_000, input: input)
            let text = try entry.encoded()
            #expect(try JournalEntry.decoded(from: text) == entry)
            #expect(!text.contains(UInt8(ascii: "\n")))
            // Written by an earlier flowd through Codable, it reads back the same.
            #expect(try JournalEntry.decoded(from: FlowJSON.encode(entry)) == entry)
        }
        // A step is written compact (the other inputs through Codable).
        let step = JournalEntry(session: "kiosk-7/ü", time: 1_000, wall: 5, input: inputs[1])
        #expect(String(decoding: try step.encoded(), as: UTF8.self).hasPrefix(#"{"v":2,"session":"kiosk-7/ü","#))
        // With the STEP's body as it came, the entry keeps the body as it is (v3) and reads back the same: tried with
        // parameters of every kind, from a stepper and from a presentable; a body beyond the embedded size is written
        // with the step's own members (v2).
        for input in inputs.prefix(3) {
            guard case .step(_, let sequence, let stepValue, let source, _) = input else { continue }
            let entry = JournalEntry(session: "kiosk-7/ü", time: 1_000, wall: 5, input: input)
            let presentable: PresentableID? = if case .presentable(let id) = source { id } else { nil }
            let body = WireCodec().body(
                of: .step(StepMessage(step: stepValue, sequence: sequence, presentable: presentable))
            )
            let text = try entry.encoded(stepBody: body)
            #expect(String(decoding: text, as: UTF8.self).hasPrefix(#"{"v":3,"session":"kiosk-7/ü","#))
            #expect(String(decoding: text, as: UTF8.self).contains(String(decoding: body, as: UTF8.self)))
            #expect(try JournalEntry.decoded(from: text) == entry)
            // The sender's members written once at its registration make the same text; another sender's are not
            // used (an entry names its own sender).
            #expect(
                try entry.encoded(stepBody: body, sender: JournalSenderText(stepper: key, peer: sender.peer)) == text
            )
            for other in [
                JournalSenderText(stepper: key, peer: "kiosk-7/other"),
                JournalSenderText(
                    stepper: StepperKey(session: "lobby", role: .presenter, name: key.name),
                    peer: sender.peer
                ),
                JournalSenderText(
                    stepper: StepperKey(session: key.session, role: .stepper, name: key.name),
                    peer: sender.peer
                ),
            ] {
                #expect(try entry.encoded(stepBody: body, sender: other) == text)
            }
        }
        let long = Step("movieIsPicked", ["title": .string(String(repeating: "é", count: 400))])
        let longInput = JournalInput.step(
            stepper: key,
            sequence: 11,
            step: long,
            source: .stepper("app"),
            sender: sender
        )
        let longEntry = JournalEntry(session: "kiosk-7/ü", time: 1_000, wall: 5, input: longInput)
        let longText = try longEntry.encoded(
            stepBody: WireCodec().body(of: .step(StepMessage(step: long, sequence: 11)))
        )
        #expect(String(decoding: longText, as: UTF8.self).hasPrefix(#"{"v":2,"#))
        #expect(try JournalEntry.decoded(from: longText) == longEntry)
        // A step whose sender's key names another session goes through Codable, and reads back as well.
        let other = StepperKey(session: "lobby", role: .stepper, name: "app")
        let elsewhere = JournalEntry(
            session: "kiosk-7/ü",
            time: 1,
            wall: 1,
            input: .step(stepper: other, sequence: 1, step: Step("home"), source: .stepper("app"), sender: sender)
        )
        #expect(!String(decoding: try elsewhere.encoded(), as: UTF8.self).hasPrefix(#"{"v":2"#))
        #expect(try JournalEntry.decoded(from: elsewhere.encoded()) == elsewhere)
    }

    /// A damaged compact entry is refused with the member that is wrong, never read as something else. Tried: a
    /// member missing, one of the wrong type, an unknown role, a negative sequence, a presentable out of range, a
    /// negative correlation, text that is not JSON; with the STEP body kept (v3): no body, a body that is not an
    /// object, one without a step, one with sequence 0.
    @Test(arguments: [
        (
            #"{"v":2,"session":"k","time":1,"wall":1,"role":"stepper","sequence":1,"step":"a","parameters":{},"stepper":"s","peer":"p","correlation":1,"sentAt":1}"#,
            "name"
        ),
        (
            #"{"v":2,"session":"k","time":"1","wall":1,"role":"stepper","name":"n","sequence":1,"step":"a","parameters":{},"stepper":"s","peer":"p","correlation":1,"sentAt":1}"#,
            "time"
        ),
        (
            #"{"v":2,"session":"k","time":1,"wall":1,"role":"pilot","name":"n","sequence":1,"step":"a","parameters":{},"stepper":"s","peer":"p","correlation":1,"sentAt":1}"#,
            "role"
        ),
        (
            #"{"v":2,"session":"k","time":1,"wall":1,"role":"stepper","name":"n","sequence":-1,"step":"a","parameters":{},"stepper":"s","peer":"p","correlation":1,"sentAt":1}"#,
            "sequence"
        ),
        (
            #"{"v":2,"session":"k","time":1,"wall":1,"role":"stepper","name":"n","sequence":1,"step":"a","parameters":[],"stepper":"s","peer":"p","correlation":1,"sentAt":1}"#,
            "parameters"
        ),
        (
            #"{"v":2,"session":"k","time":1,"wall":1,"role":"stepper","name":"n","sequence":1,"step":"a","parameters":{},"presentable":4294967296,"peer":"p","correlation":1,"sentAt":1}"#,
            "presentable"
        ),
        (
            #"{"v":2,"session":"k","time":1,"wall":1,"role":"stepper","name":"n","sequence":1,"step":"a","parameters":{},"stepper":"s","peer":"p","correlation":-1,"sentAt":1}"#,
            "correlation"
        ),
        (#"{"v":2,"session":"k""#, ""),
        (
            #"{"v":3,"session":"k","time":1,"wall":1,"role":"stepper","name":"n","stepper":"s","peer":"p","correlation":1,"sentAt":1}"#,
            "message"
        ),
        (
            #"{"v":3,"session":"k","time":1,"wall":1,"role":"stepper","name":"n","message":[1],"stepper":"s","peer":"p","correlation":1,"sentAt":1}"#,
            "message"
        ),
        (
            #"{"v":3,"session":"k","time":1,"wall":1,"role":"stepper","name":"n","message":{"sequence":1},"stepper":"s","peer":"p","correlation":1,"sentAt":1}"#,
            "message"
        ),
        (
            #"{"v":3,"session":"k","time":1,"wall":1,"role":"stepper","name":"n","message":{"step":{"name":"a","parameters":{}},"sequence":0},"stepper":"s","peer":"p","correlation":1,"sentAt":1}"#,
            "message"
        ),
    ])
    func aDamagedCompactEntryIsRefused(text: String, member: String) {
        do {
            let entry = try JournalEntry.decoded(from: Array(text.utf8))
            Issue.record("read \(entry)")
        } catch {
            #expect(member.isEmpty || "\(error)".contains("\"\(member)\""), "\(error)")
        }
    }

    /// Steps for a session that does not exist (an inspector naming an unknown one) change no session: nothing of
    /// them is kept, so nothing is left behind for ever.
    @Test func stepsForASessionThatDoesNotExistLeaveNothingInTheStore() throws {
        var durable = try DurableBus()
        try durable.hello(.inspector, "ctl", name: "app", session: nil)
        let answer = try durable.send(
            .step(StepMessage(step: Step("dashboardIsRequired"), sequence: 1)),
            from: "ctl",
            session: "ghost"
        )
        #expect(fate(answer)?.reason == "unknownSession")
        #expect(try durable.store.load().entries.isEmpty)
    }

    @Test func anEndedSessionLeavesNothingInTheStore() throws {
        var durable = try DurableBus { $0.snapshotEvery = 2 }
        try demoJourney(&durable)
        try durable.hello(.inspector, "ctl", name: "ctl", session: nil)
        try durable.send(.query(Query(what: "endSession", arguments: ["session": "lobby"])), from: "ctl", session: nil)
        let stored = try durable.store.load()
        #expect(!stored.snapshots.contains { $0.session == "lobby" })
        #expect(!stored.entries.contains { $0.session == "lobby" })
        #expect(try durable.restored().0.sessions == ["kiosk"])
    }

    @Test func aSessionStartedAgainInTheTurnItEndedIsKeptWhole() throws {
        var durable = try DurableBus()
        try durable.hello(.inspector, "ctl", name: "ctl", session: nil)
        try durable.hello(.stepper, "kiosk/app", name: "app")
        try durable.send(.step(StepMessage(step: Step("onboardingIsRequired"), sequence: 1)), from: "kiosk/app")
        // Both in one turn: the end and the new start are written together.
        durable.bus.send(.query(Query(what: "endSession", arguments: ["session": "kiosk"])), from: "ctl", session: nil)
        _ = durable.bus.hello(.stepper, "kiosk/app", name: "app")
        try durable.store.commit(durable.bus.coordinator.takeStoreGroup())
        let (restored, _) = try durable.restored()
        let same = durable.holdsTheSameSessions(as: restored)
        #expect(same)
        #expect(restored.engine.inspect("kiosk")?.flows.count == 1)
    }

    @Test func sessionsNoPeerTouchesAreEndedAfterTheIdleExpiry() throws {
        var durable = try DurableBus { $0.idleSessionExpiry = .seconds(60) }
        try durable.hello(.stepper, "kiosk/app", name: "app")
        try durable.hello(.stepper, "lobby/app", name: "app", session: "lobby")
        try durable.send(.bye(Bye(reason: "done")), from: "lobby/app", session: "lobby")
        // The kiosk's stepper keeps talking; the lobby has nobody.
        for _ in 0..<13 {
            _ = try durable.tick(by: 5_000)
            try durable.send(.heartbeat(Heartbeat()), from: "kiosk/app")
        }
        #expect(durable.bus.coordinator.sessions == ["kiosk"])
        #expect(durable.bus.coordinator.counters.sessionsExpired == 1)
        #expect(try durable.restored().0.sessions == ["kiosk"])
    }

    /// Ending idle sessions is bounded per check (a thousand), so that many sessions idle at once do not stall the
    /// loop; the rest go at the next check.
    @Test func idleSessionsAreEndedAThousandAtATime() throws {
        var bus = try Bus {
            $0.idleSessionExpiry = .seconds(60)
            $0.sessionsPerPeerPerMinute = 10_000
        }
        for index in 1...1_005 {
            _ = bus.hello(.stepper, "roamer", name: "app", session: "s\(index)")
        }
        bus.send(.bye(Bye(reason: "done")), from: "roamer", session: "s1005")
        bus.now += 61_000
        _ = bus.coordinator.tick(now: bus.now)
        #expect(bus.coordinator.counters.sessionsExpired == 1_000)
        #expect(bus.coordinator.sessions.count == 5)
        bus.now += 10_000
        _ = bus.coordinator.tick(now: bus.now)
        #expect(bus.coordinator.sessions.isEmpty)
    }

    @Test func anInspectorsNumberingGoesWithItAcrossTheJournal() throws {
        var durable = try DurableBus()
        try durable.hello(.stepper, "kiosk/app", name: "app")
        try durable.hello(.inspector, "ctl", name: "app", session: nil)
        try durable.send(.step(StepMessage(step: Step("onboardingIsRequired"), sequence: 1)), from: "ctl")
        try durable.send(.bye(Bye(reason: "done")), from: "ctl", session: nil)
        // The same inspector id again numbers from 1: a new step, applied.
        try durable.hello(.inspector, "ctl", name: "app", session: nil)
        try durable.send(.step(StepMessage(step: Step("dashboardIsRequired"), sequence: 1)), from: "ctl")
        let (restored, _) = try durable.restored()
        let same = durable.holdsTheSameSessions(as: restored)
        #expect(same)
    }

    @Test func aTurnsEffectsPutItsJournalEntryAheadOfItsAcknowledgement() throws {
        var bus = try Bus(flows: tickerFlows, durable: true)
        bus.send(
            .hello(Hello(role: .stepper, id: "kiosk/ticker", name: "ticker", session: "kiosk")),
            from: "kiosk/ticker"
        )
        _ = bus.coordinator.takeStoreGroup()
        let before = bus.sent.count
        bus.send(.step(StepMessage(step: Step("tick", ["n": .int(1)]), sequence: 1)), from: "kiosk/ticker")
        let effects = bus.coordinator.finishTurn(sending: Array(bus.sent[before...]))
        #expect(effects.persist.entries.count == 1)
        #expect(effects.persist.entries.first?.session == "kiosk")
        let acknowledgements = bus.replies(effects.messages, to: "kiosk/ticker").filter {
            if case .stepAck = $0.message { true } else { false }
        }
        #expect(acknowledgements.count == 1)
        // Taken: the next turn starts empty.
        #expect(bus.coordinator.finishTurn(sending: []).persist.entries.isEmpty)
    }
}
