import FlowBusTesting
import FlowCore
import FlowDaemonCore
import FlowSpec
import FlowWire
import Foundation
import Testing

@Suite struct CoordinatorTests {
    @Test func helloCreatesTheSessionAndWelcomesThePeer() throws {
        var bus = try Bus()
        let answer = bus.hello(.presenter, "kiosk/main", name: "main")
        guard case .welcome(let welcome) = answer.first?.message else {
            Issue.record("no WELCOME: \(answer)")
            return
        }
        #expect(welcome.sessionCreated)
        #expect(welcome.heartbeatInterval == 1000)
        #expect(answer.first?.header.correlation == 1)
        #expect(bus.coordinator.sessions == ["kiosk"])
        #expect(bus.commands(for: "main").map(\.sequence) == [1])
        #expect(bus.commands(for: "main").first?.commands.first?.operation == "setWindowRoot")
    }

    @Test func stepsAreAcknowledgedWithTheirFateAndAResentStepIsAppliedOnce() throws {
        var bus = try Bus()
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        let first = bus.send(.step(StepMessage(step: Step("onboardingIsRequired"), sequence: 1)), from: "kiosk/app")
        #expect(fate(first)?.accepted == true)
        let batches = bus.commands(for: "main").count
        // The same sequence again (a resend after a reconnect): same fate, nothing applied twice.
        let again = bus.send(.step(StepMessage(step: Step("onboardingIsRequired"), sequence: 1)), from: "kiosk/app")
        #expect(fate(again) == fate(first))
        #expect(bus.commands(for: "main").count == batches)
        #expect(bus.coordinator.counters.stepsIn == 1)

        // A reconnected stepper learns the last sequence applied.
        let welcome = bus.hello(.stepper, "kiosk/app", name: "app")
        guard case .welcome(let hello) = welcome.first?.message else { return }
        #expect(hello.lastSequence == 1)
    }

    /// A dropped connection loses what it carried, while what was still queued goes out on the next one: flowd
    /// sees step 3 before step 2. It applies neither out of order: 3 is refused with `sequenceGap`, and applied
    /// after 2 when the stepper resends both in order.
    @Test func aStepAfterAGapWaitsForTheStepsBeforeIt() throws {
        var bus = try Bus(flows: tickerFlows)
        _ = bus.hello(.stepper, "kiosk/ticker", name: "ticker")
        func tick(_ sequence: UInt64) -> [Envelope] {
            bus.send(
                .step(StepMessage(step: Step("tick", ["n": .int(Int(sequence))]), sequence: sequence)),
                from: "kiosk/ticker"
            )
        }
        #expect(fate(tick(1))?.accepted == true)
        let early = tick(3)
        #expect(error(early)?.code == "sequenceGap")
        #expect(error(early)?.message.contains("step 3 came before step 2") == true)
        #expect(fate(early) == nil)
        #expect(bus.coordinator.counters.stepsIn == 1)
        #expect(fate(tick(2))?.accepted == true)
        #expect(fate(tick(3))?.accepted == true)
        #expect(fate(tick(3))?.accepted == true)  // a repeat: the same fate again, applied once
        #expect(bus.coordinator.counters.stepsIn == 3)
        let shown = bus.commands(for: "main").flatMap(\.commands).flatMap(\.placed).filter { $0.name == "Tick" }.map {
            $0.parameters["n"]
        }
        #expect(shown == [1, 2, 3])
    }

    /// flowd keeps at least the last 256 fates per stepper (the configuration's `rememberedAcknowledgements`): a
    /// step resent from within them gets its fate again, one from long before is refused as stale.
    @Test func fatesAreRememberedForTheLastStepsAndOlderOnesAreStale() throws {
        var bus = try Bus(flows: tickerFlows)
        _ = bus.hello(.stepper, "kiosk/ticker", name: "ticker")
        for sequence in 1...700 {
            bus.send(
                .step(StepMessage(step: Step("tick", ["n": .int(sequence)]), sequence: UInt64(sequence))),
                from: "kiosk/ticker"
            )
        }
        #expect(bus.coordinator.counters.stepsIn == 700)
        let recent = bus.send(.step(StepMessage(step: Step("tick", ["n": 445]), sequence: 445)), from: "kiosk/ticker")
        #expect(fate(recent)?.accepted == true)
        let stale = bus.send(.step(StepMessage(step: Step("tick", ["n": 1]), sequence: 1)), from: "kiosk/ticker")
        #expect(error(stale)?.code == "staleSequence")
        #expect(bus.coordinator.counters.stepsIn == 700)
    }

    /// A bus whose session shows onboarding (asked for by the app stepper), and the intro screen's id.
    private static func onboarding() throws -> (Bus, PresentableID) {
        var bus = try Bus()
        _ = bus.hello(.presenter, "kiosk/main", name: "main")
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        bus.send(.step(StepMessage(step: Step("onboardingIsRequired"), sequence: 1)), from: "kiosk/app")
        let intro = try #require(
            bus.commands(for: "main").flatMap(\.commands).flatMap(\.placed).first { $0.name == "OnboardingIntro" }?.id
        )
        return (bus, intro)
    }

    @Test func aScreensStepIsDroppedWhileHiddenThenAcceptedOnceReportedVisible() throws {
        var (bus, intro) = try Self.onboarding()
        let hidden = bus.send(
            .step(StepMessage(step: Step("introIsComplete"), sequence: 1, presentable: intro)),
            from: "kiosk/main"
        )
        #expect(fate(hidden)?.reason == "notVisible")
        #expect(fate(hidden)?.remedy?.contains("reported visible by its presenter") == true)
        _ = bus.send(.visibility(VisibilityReport(visibility: .visible, presentables: [intro])), from: "kiosk/main")
        let visible = bus.send(
            .step(StepMessage(step: Step("introIsComplete"), sequence: 2, presentable: intro)),
            from: "kiosk/main"
        )
        #expect(fate(visible)?.accepted == true)
    }

    /// The demo's flow file says what each screen sends (`sends:`): anything else from one is dropped before any
    /// flow sees it, saying what the screen sends; the journal-free bus goes on. Tried: the intro screen sending the
    /// API key's step, then what it does send.
    @Test func aStepItsSenderIsNotDeclaredToSendIsDroppedSayingWhatItSends() throws {
        var (bus, intro) = try Self.onboarding()
        _ = bus.send(.visibility(VisibilityReport(visibility: .visible, presentables: [intro])), from: "kiosk/main")
        let before = bus.commands(for: "main").count
        let fromScreen = try #require(
            fate(
                bus.send(
                    .step(StepMessage(step: Step("apiKeyIsFilledIn"), sequence: 1, presentable: intro)),
                    from: "kiosk/main"
                )
            )
        )
        #expect(fromScreen.reason == "notDeclaredForSender")
        #expect(
            fromScreen.explanation
                == "the flow file says screen OnboardingIntro sends only introIsComplete, not apiKeyIsFilledIn"
        )
        #expect(bus.commands(for: "main").count == before)
        #expect(bus.coordinator.counters.dropped["notDeclaredForSender"] == 1)
        let declared = bus.send(
            .step(StepMessage(step: Step("introIsComplete"), sequence: 2, presentable: intro)),
            from: "kiosk/main"
        )
        #expect(fate(declared)?.accepted == true)
    }

    @Test func aPeerActsOnlyInTheSessionItRegisteredFor() throws {
        var bus = try Bus()
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        _ = bus.hello(.stepper, "other/app", name: "app", session: "other")
        let before = bus.commands(for: "main", session: "other").count
        // Tried: a stepper of kiosk posting into session other as its `app`; an inspector naming no session.
        let hijack = bus.send(
            .step(StepMessage(step: Step("dashboardIsRequired"), sequence: 1)),
            from: "kiosk/app",
            session: "other"
        )
        #expect(error(hijack)?.code == "wrongSession")
        #expect(bus.commands(for: "main", session: "other").count == before)
        _ = bus.hello(.inspector, "flowctl", session: nil)
        let nowhere = bus.send(
            .deepLink(DeepLinkMessage(path: [Step("dashboardIsRequired")], sequence: 1)),
            from: "flowctl",
            session: nil
        )
        #expect(error(nowhere)?.code == "missingSession")
        // The refused step took its number: sent again, it gets the same refusal.
        let again = bus.send(
            .step(StepMessage(step: Step("dashboardIsRequired"), sequence: 1)),
            from: "kiosk/app",
            session: "other"
        )
        #expect(error(again)?.code == "wrongSession")
        // Its own session, named or not, is fine.
        #expect(
            fate(bus.send(.step(StepMessage(step: Step("dashboardIsRequired"), sequence: 2)), from: "kiosk/app"))?
                .accepted == true
        )
        #expect(
            fate(
                bus.send(
                    .step(StepMessage(step: Step("dashboardIsRequired"), sequence: 3)),
                    from: "kiosk/app",
                    session: nil
                )
            )?
            .accepted == true
        )
    }

    @Test func aSnapshotRebuildsThePresentersScreenAtItsSequence() throws {
        var bus = try Bus()
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        bus.send(.step(StepMessage(step: Step("onboardingIsRequired"), sequence: 1)), from: "kiosk/app")
        _ = bus.hello(.presenter, "kiosk/main", name: "main")
        let answer = bus.send(.snapshotRequest(SnapshotRequest()), from: "kiosk/main")
        guard case .snapshot(let snapshot) = answer.first?.message else {
            Issue.record("no SNAPSHOT")
            return
        }
        #expect(snapshot.sequence == UInt64(bus.commands(for: "main").count))
        var rebuilt = ScreenTree()
        for command in snapshot.commands {
            try rebuilt.apply(command, for: "main")
        }
        var live = ScreenTree()
        for command in bus.commands(for: "main").flatMap(\.commands) {
            try live.apply(command, for: "main")
        }
        #expect(rebuilt == live)
    }

    @Test func badInputGetsAnErrorAndChangesNothing() throws {
        var bus = try Bus()
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        _ = bus.hello(.presenter, "kiosk/main", name: "main")
        _ = bus.hello(.presenter, "kiosk/cluster", name: "cluster")
        let before = bus.commands(for: "main").count
        // Tried: garbage frames, another version, a step before HELLO, an unknown step, a screen of another
        // presenter, a HELLO with someone else's id, a duplicate name, a message only the daemon sends, an
        // unknown query, a report about an unknown presentable.
        #expect(error(bus.sendRaw([[1, 2, 3]], from: "kiosk/app"))?.code == "notFlowBus")
        #expect(
            error(bus.sendRaw([Array("FLOWBUS/9".utf8), [], [], []], from: "kiosk/app"))?.code == "unsupportedVersion"
        )
        // A HELLO whose body cannot be read is answered with its id: the client waiting for it learns why.
        let unreadable = bus.sendRaw(
            [Array("FLOWBUS/1".utf8), Array("HELLO".utf8), Array(#"{"id":77,"sentAt":0}"#.utf8), Array("{".utf8)],
            from: "kiosk/app"
        )
        #expect(unreadable.first?.header.correlation == 77)
        #expect(error(unreadable)?.code == "malformedBody")
        #expect(
            error(bus.send(.step(StepMessage(step: Step("dashboardIsRequired"), sequence: 1)), from: "stranger"))?.code
                == "notRegistered"
        )
        #expect(
            error(bus.send(.step(StepMessage(step: Step("teleport"), sequence: 1)), from: "kiosk/app"))?.code
                == "unknownStep"
        )
        let root = PresentableID(1)
        #expect(
            error(
                bus.send(
                    .step(StepMessage(step: Step("dashboardIsRequired"), sequence: 1, presentable: root)),
                    from: "kiosk/cluster"
                )
            )?
            .code == "foreignPresentable"
        )
        #expect(
            error(bus.send(.hello(Hello(role: .stepper, id: "kiosk/app", session: "kiosk")), from: "impostor"))?.code
                == "idMismatch"
        )
        // A routing id libzmq made up (a zero byte, then its counter) is never told: libzmq aborts when it makes up
        // an id a peer took, so its counter must stay unknown.
        let madeUp = String(decoding: [0, 0x41, 0x42, 0x43, 0x44], as: UTF8.self)
        // (Its client cannot know it, so it names no sender: a sender holding a control character is refused.)
        let anonymous = Header(id: 99, session: "kiosk", sentAt: bus.now)
        let hello = Message.hello(Hello(role: .stepper, id: "kiosk/app", session: "kiosk"))
        let unnamed = error(bus.sendRaw(bus.codec.encode(Envelope(header: anonymous, message: hello)), from: madeUp))
        #expect(unnamed?.code == "idMismatch")
        #expect(unnamed?.message.contains("ABCD") == false)
        #expect(unnamed?.message.contains("the DEALER set no routing id") == true)
        #expect(error(bus.hello(.stepper, "kiosk/app2", name: "app"))?.code == "nameTaken")
        // Inspectors number their steps per connection: two of one name in a session are both welcomed (two flowctl
        // emitting as the same stepper, or one started before the last one's BYE arrived).
        #expect(error(bus.hello(.inspector, "ctl-1", name: "app")) == nil)
        #expect(error(bus.hello(.inspector, "ctl-2", name: "app")) == nil)
        #expect(
            error(
                bus.send(
                    .welcome(
                        Welcome(
                            daemonVersion: "",
                            id: "",
                            session: nil,
                            sessionCreated: false,
                            heartbeatInterval: 0,
                            heartbeatTimeout: 0,
                            maxMessageSize: 0,
                            lastSequence: nil
                        )
                    ),
                    from: "kiosk/app"
                )
            )?.code == "unexpectedMessage"
        )
        #expect(error(bus.send(.query(Query(what: "everything")), from: "kiosk/app"))?.code == "unknownQuery")
        #expect(
            error(
                bus.send(
                    .visibility(VisibilityReport(visibility: .visible, presentables: [PresentableID(99)])),
                    from: "kiosk/main"
                )
            )?.code == "unknownPresentable"
        )
        #expect(bus.commands(for: "main").count == before)
        let errors = bus.coordinator.counters.errors
        #expect(errors.values.reduce(0, +) == 12)
        // And the bus still works; the refused `teleport` took sequence 1, and gets its refusal again.
        let ok = bus.send(.step(StepMessage(step: Step("dashboardIsRequired"), sequence: 2)), from: "kiosk/app")
        #expect(fate(ok)?.accepted == true)
        let teleport = bus.send(.step(StepMessage(step: Step("teleport"), sequence: 1)), from: "kiosk/app")
        #expect(error(teleport)?.code == "unknownStep")
    }

    @Test func guardsAreAskedAndTheirAnswerDecides() throws {
        var bus = try Bus(
            flows: guardedAboutFlows
        )
        _ = bus.hello(.guard, "permissions-guard", name: "permissions", session: nil)
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        for (sequence, allowed) in [(UInt64(1), true), (2, false)] {
            let asked = bus.send(.step(StepMessage(step: Step("about"), sequence: sequence)), from: "kiosk/app")
            #expect(fate(asked) == nil)
            let question = try #require(
                bus.replies(bus.sent, to: "permissions-guard").compactMap { envelope -> (UInt64, String?)? in
                    if case .guardQuestion(let question) = envelope.message {
                        (question.question, envelope.header.session)
                    } else {
                        nil
                    }
                }.last
            )
            #expect(question.1 == "kiosk")
            bus.send(
                .guardAnswer(GuardAnswer(question: question.0, allowed: allowed)),
                from: "permissions-guard",
                session: "kiosk"
            )
            let ack = bus.replies(bus.sent, to: "kiosk/app").compactMap { envelope -> StepAck? in
                if case .stepAck(let ack) = envelope.message { ack } else { nil }
            }.last
            #expect(ack?.sequence == sequence)
            #expect(ack?.fate.accepted == true)
        }
        let shown = bus.commands(for: "main").flatMap(\.commands).flatMap(\.placed).map(\.name)
        #expect(shown == ["app", "About", "Refused"])

        // A guard that does not answer: refused at the deadline. Sent again while its guard is asked, the step gets
        // nothing yet (its fate is to come): no second question, no ERROR (staleSequence would say it was forgotten).
        bus.send(.step(StepMessage(step: Step("about"), sequence: 3)), from: "kiosk/app")
        let questionsAsked = bus.replies(bus.sent, to: "permissions-guard").count
        #expect(bus.send(.step(StepMessage(step: Step("about"), sequence: 3)), from: "kiosk/app").isEmpty)
        #expect(bus.replies(bus.sent, to: "permissions-guard").count == questionsAsked)
        bus.now += 2_000
        let timedOut = bus.coordinator.tick(now: bus.now)
        #expect(
            bus.replies(timedOut, to: "kiosk/app").contains { if case .stepAck = $0.message { true } else { false } }
        )
        bus.sent += timedOut
        #expect(bus.commands(for: "main").last?.commands.first?.placed.first?.name == "Refused")
        #expect(bus.commands(for: "main").map(\.sequence) == [1, 2, 3, 4])
    }

    @Test func reloadingKeepsSessionsAndAsksAWaitingGuardAgain() throws {
        let flows = """
            version: 1
            session: { root: App, stepper: { named: app } }
            steps:
              about: {}
            flows:
              App:
                root: { stack: app }
                adapt:
                  about:
                    guard: { name: permissions }
                on:
                  about:
                    - show: About
            """
        var bus = try Bus(flows: flows)
        _ = bus.hello(.guard, "permissions-guard", name: "permissions", session: nil)
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        bus.send(.step(StepMessage(step: Step("about"), sequence: 1)), from: "kiosk/app")
        let questions = { (out: [Outgoing]) in
            bus.replies(out, to: "permissions-guard").filter {
                if case .guardQuestion = $0.message { true } else { false }
            }
        }
        #expect(questions(bus.sent).count == 1)

        let renamed = flows.replacingOccurrences(of: "- show: About", with: "- show: AboutScreen")
        let again = try bus.coordinator.reload(try FlowSpecification.parse(renamed))
        #expect(questions(again).count == 1)
        #expect(bus.coordinator.sessions == ["kiosk"])
        guard case .guardQuestion(let question) = questions(again).first?.message else { return }
        bus.send(.guardAnswer(GuardAnswer(question: question.question, allowed: true)), from: "permissions-guard")
        #expect(bus.commands(for: "main").last?.commands.first?.placed.first?.name == "AboutScreen")

        // A file without the running root flow is refused and changes nothing.
        let other = flows.replacingOccurrences(of: "App", with: "Other")
        #expect(throws: FlowCoreError.self) { try bus.coordinator.reload(try FlowSpecification.parse(other)) }
        #expect(bus.coordinator.specification.flows.map(\.name) == ["App"])
    }

    @Test func inspectionEventsArePublishedOnlyWhileSomeoneSubscribes() throws {
        var bus = try Bus()
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        let published = { (bus: Bus) in
            bus.sent.compactMap { outgoing -> InspectionEvent? in
                guard case .publish(let topic, let frames) = outgoing, topic.hasPrefix("ins/"),
                    case .event(let event) = try? bus.codec.decode(frames).message
                else { return nil }
                return event
            }
        }
        bus.send(.step(StepMessage(step: Step("onboardingIsRequired"), sequence: 1)), from: "kiosk/app")
        #expect(published(bus).isEmpty)

        _ = bus.coordinator.subscription(Array("ins/".utf8), subscribed: true, now: bus.now)
        bus.send(.step(StepMessage(step: Step("teleport"), sequence: 2)), from: "kiosk/app")
        bus.send(.step(StepMessage(step: Step("dashboardIsRequired"), sequence: 3)), from: "kiosk/app")
        let events = published(bus)
        #expect(events.map(\.kind).contains("error"))
        #expect(events.map(\.kind).contains("didNavigate"))
        let fromApp = events.filter { $0.kind == "stepFate" && $0.fields["source"] == ["stepper": "app"] }
        let fate = try #require(fromApp.last)
        #expect(fate.session == "kiosk")
        #expect(fate.fields["step"]?.objectValue?["name"] == "dashboardIsRequired")
        #expect(fate.fields["accepted"] == true)
        #expect(fate.fields["flows"] == [1])

        // The flows reloaded (a new engine) while watched: every event is still there.
        _ = try bus.coordinator.reload(bus.coordinator.specification)
        let beforeReloaded = published(bus).count
        bus.send(.step(StepMessage(step: Step("dashboardIsRequired"), sequence: 4)), from: "kiosk/app")
        #expect(published(bus).dropFirst(beforeReloaded).contains { $0.kind == "didNavigate" })

        _ = bus.coordinator.subscription(Array("ins/".utf8), subscribed: false, now: bus.now)
        let count = published(bus).count
        bus.send(.step(StepMessage(step: Step("dashboardIsRequired"), sequence: 5)), from: "kiosk/app")
        #expect(published(bus).count == count)
    }

    @Test func endingASessionForgetsItsSteppersSequences() throws {
        var bus = try Bus()
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        bus.send(.step(StepMessage(step: Step("onboardingIsRequired"), sequence: 5)), from: "kiosk/app")
        _ = bus.hello(.inspector, "flowctl", session: nil)
        bus.send(.query(Query(what: "endSession", arguments: ["session": "kiosk"])), from: "flowctl", session: nil)
        #expect(bus.coordinator.sessions.isEmpty)
        guard case .welcome(let welcome) = bus.hello(.stepper, "kiosk/app", name: "app").first?.message else {
            Issue.record("no WELCOME")
            return
        }
        #expect(welcome.sessionCreated)
        #expect(welcome.lastSequence == nil)
    }

    /// A step whose parameters do not match the flow file is dropped before any flow sees it, with a fate that names
    /// the parameter; a deep link too, by its first such step. Tried: `movieIsPicked` without `withId`, with "abc",
    /// with {}, with an undeclared extra.
    @Test func aStepWithParametersThatDoNotMatchTheFlowFileIsDroppedNamingTheParameter() throws {
        var bus = try Bus()
        _ = bus.hello(.presenter, "kiosk/main", name: "main")
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        let before = bus.commands(for: "main").count
        let tried: [(JSONObject, String)] = [
            ([:], "movieIsPicked's parameter 'withId' is missing (it must be an int)"),
            (["withId": "abc"], "movieIsPicked's parameter 'withId' must be an int, not a string"),
            (["withId": .object([:])], "movieIsPicked's parameter 'withId' must be an int, not an object"),
        ]
        for (sequence, (parameters, explanation)) in tried.enumerated() {
            let step = Step("movieIsPicked", parameters)
            let acknowledged = try #require(
                fate(bus.send(.step(StepMessage(step: step, sequence: UInt64(sequence + 1))), from: "kiosk/app"))
            )
            #expect(!acknowledged.accepted)
            #expect(acknowledged.reason == "invalidParameters")
            #expect(acknowledged.parameter == "withId")
            #expect(acknowledged.explanation == explanation)
        }
        let extra = Step("dashboardIsRequired", ["theme": "dark"])
        let linked = try #require(
            fate(bus.send(.deepLink(DeepLinkMessage(path: [extra], sequence: 4)), from: "kiosk/app"))
        )
        #expect(linked.reason == "invalidParameters")
        #expect(linked.parameter == "theme")
        #expect(bus.commands(for: "main").count == before)
        #expect(bus.coordinator.counters.dropped["invalidParameters"] == 4)
        // The journal-free bus goes on: a step that matches passes.
        let matching = Step("dashboardIsRequired")
        #expect(fate(bus.send(.step(StepMessage(step: matching, sequence: 5)), from: "kiosk/app"))?.accepted == true)
        // The none step is no unknown step: every flow file knows it, and no flow navigates it.
        #expect(fate(bus.send(.step(StepMessage(step: .none, sequence: 6)), from: "kiosk/app"))?.reason == "noneStep")
    }

    /// Ending a session dismisses every screen (its presenter gets the batch), ends its peers' registrations (their
    /// next message is answered notRegistered), and a HELLO starts it anew.
    @Test func endingASessionDismissesItsScreensAndEndsItsRegistrations() throws {
        var bus = try Bus()
        _ = bus.hello(.presenter, "kiosk/main", name: "main")
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        bus.send(.step(StepMessage(step: Step("dashboardIsRequired"), sequence: 1)), from: "kiosk/app")
        let shown = bus.commands(for: "main").count
        #expect(shown > 0)
        _ = bus.hello(.inspector, "flowctl", session: nil)
        bus.send(.query(Query(what: "endSession", arguments: ["session": "kiosk"])), from: "flowctl", session: nil)
        let last = try #require(bus.commands(for: "main").last)
        #expect(bus.commands(for: "main").count == shown + 1)
        #expect(last.commands.map(\.operation) == ["dismiss"])
        let replies = bus.send(.step(StepMessage(step: Step("dashboardIsRequired"), sequence: 2)), from: "kiosk/app")
        #expect(error(replies)?.code == "notRegistered")
        #expect(error(bus.send(.heartbeat(Heartbeat()), from: "kiosk/main"))?.code == "notRegistered")
        guard case .welcome(let welcome) = bus.hello(.stepper, "kiosk/app", name: "app").first?.message else {
            Issue.record("no WELCOME")
            return
        }
        #expect(welcome.sessionCreated)
    }

    @Test func aPeerOverItsMessageRateIsDroppedCountedAndToldOncePerSecond() throws {
        var bus = try Bus(peerMessageRate: 100)
        _ = bus.hello(.presenter, "kiosk/main", name: "main")
        // The bucket holds two seconds' worth (200); the HELLO took one.
        var errors: [ErrorReply] = []
        for _ in 0..<300 {
            errors += bus.send(.heartbeat(Heartbeat()), from: "kiosk/main").compactMap { envelope in
                if case .error(let error) = envelope.message { error } else { nil }
            }
        }
        #expect(errors.map(\.code) == ["flood"])
        #expect(bus.coordinator.counters.errors["flood"] == 101)
        #expect(bus.coordinator.counters.messagesIn["HEARTBEAT"] == 199)
        // Another peer is not slowed down.
        #expect(bus.hello(.stepper, "kiosk/app", name: "app").contains { $0.message.type == .welcome })

        // A second later the bucket has refilled by the rate: 100 more pass, and the flooder hears once more.
        bus.now += 1000
        for _ in 0..<101 {
            bus.send(.heartbeat(Heartbeat()), from: "kiosk/main")
        }
        #expect(bus.coordinator.counters.messagesIn["HEARTBEAT"] == 299)
        #expect(bus.coordinator.counters.errors["flood"] == 102)
    }

    @Test func aStepperAndAPresenterOfTheSameNameNumberTheirStepsApart() throws {
        var bus = try Bus()
        _ = bus.hello(.stepper, "kiosk/main-stepper", name: "main")
        _ = bus.hello(.presenter, "kiosk/main", name: "main")
        let fromStepper = bus.send(
            .step(StepMessage(step: Step("dashboardIsRequired"), sequence: 1)),
            from: "kiosk/main-stepper"
        )
        let fromPresenter = bus.send(
            .step(StepMessage(step: Step("dashboardIsRequired"), sequence: 1)),
            from: "kiosk/main"
        )
        #expect(fate(fromStepper) != nil)
        #expect(fate(fromPresenter) != nil)
        #expect(bus.coordinator.counters.stepsIn == 2)
    }

    @Test func subscriptionsAreConfirmedOnTheirTopic() throws {
        var bus = try Bus()
        let out = bus.coordinator.subscription(Array("cmd/kiosk/7/main".utf8), subscribed: true, now: bus.now)
        guard case .publish(let topic, let frames) = try #require(out.first) else {
            Issue.record("nothing published")
            return
        }
        #expect(topic == "cmd/kiosk/7/main")
        let envelope = try WireCodec().decode(frames)
        #expect(envelope.message == .heartbeat(Heartbeat()))
        #expect(envelope.header.session == "kiosk/7")
        #expect(bus.coordinator.subscription(Array("cmd/kiosk/7/main".utf8), subscribed: false, now: bus.now).isEmpty)
        // Inspectors' subscriptions are confirmed too, with or without a session.
        let inspectors = [
            ("ins/", nil), ("ins/kiosk/7/", "kiosk/7"), ("ins/-/", nil), ("inb/", nil), ("inb/kiosk/", "kiosk"),
        ]
        for (subscription, session) in [("cmd/", nil)] + inspectors {
            let confirmed = bus.coordinator.subscription(Array(subscription.utf8), subscribed: true, now: bus.now)
            guard case .publish(let topic, let frames) = try #require(confirmed.first) else {
                Issue.record("nothing published for \(subscription)")
                continue
            }
            #expect(topic == subscription)
            #expect(try WireCodec().decode(frames).header.session == session)
        }
        #expect(bus.coordinator.subscription(Array("zzz/".utf8), subscribed: true, now: bus.now).isEmpty)
    }

    @Test func sessionDataIsAnsweredOnceSet() throws {
        var bus = try Bus()
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        let answer = bus.send(.sessionData(SessionDataMessage(key: "permissions", value: ["about"])), from: "kiosk/app")
        let reply = try #require(answer.first)
        #expect(reply.message == .reply(Reply(result: ["key": "permissions"])))
        #expect(reply.header.correlation == bus.messageID)
    }

    /// The wall clock jumps (an NTP step on a kiosk, back an hour, then forward a day): timers run on flowd's
    /// monotonic clock, so no peer is dropped and heartbeats keep their pace; timestamps follow the wall clock.
    @Test func aStepOfTheWallClockNeitherDropsPeersNorStopsHeartbeats() throws {
        var bus = try Bus()
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        for jump in [Int64(-3_600_000), 86_400_000] {
            bus.coordinator.wallOffset += jump
            bus.now += 700
            let answer = bus.send(.heartbeat(Heartbeat()), from: "kiosk/app")
            #expect(answer.isEmpty)
            _ = bus.coordinator.tick(now: bus.now)
            #expect(bus.coordinator.counters.peersLost == 0)
        }
        bus.now += 1_100
        let heartbeats = bus.replies(bus.coordinator.tick(now: bus.now), to: "kiosk/app")
        #expect(heartbeats.count == 1)
        #expect(heartbeats.first?.header.sentAt == bus.now + 86_400_000 - 3_600_000)
        #expect(bus.coordinator.counters.peersLost == 0)
    }

    @Test func silentPeersAreDroppedAndIdleOnesGetHeartbeats() throws {
        var bus = try Bus()
        _ = bus.hello(.presenter, "kiosk/main", name: "main")
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        bus.now += 1_500
        bus.send(.heartbeat(Heartbeat()), from: "kiosk/app")
        let ticked = bus.coordinator.tick(now: bus.now)
        let heartbeats = ticked.compactMap { outgoing -> String? in
            guard case .toPeer(let peer, let frames) = outgoing, case .heartbeat = try? bus.codec.decode(frames).message
            else { return nil }
            return peer
        }
        // The daemon sent nothing to either for longer than the interval (it does not answer heartbeats).
        #expect(heartbeats == ["kiosk/app", "kiosk/main"])
        #expect(bus.coordinator.tick(now: bus.now).isEmpty)
        bus.now += 5_000
        bus.send(.heartbeat(Heartbeat()), from: "kiosk/app")
        _ = bus.coordinator.tick(now: bus.now)
        #expect(bus.coordinator.counters.peersLost == 1)
        let registrations = bus.send(.query(Query(what: "registrations")), from: "kiosk/app")
        guard case .reply(let reply) = registrations.first?.message else { return }
        #expect(reply.result.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } == ["kiosk/app"])
    }

    /// A session's last activity is noted to the second while its peers speak, and to the millisecond when one
    /// leaves: the `sessions` query shows it.
    @Test func aSessionsLastActivityIsNotedToTheSecondAndWhenAPeerLeaves() throws {
        var bus = try Bus()
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        _ = bus.hello(.inspector, "ctl", session: nil)
        func lastActivity() -> Int? {
            let replies = bus.send(.query(Query(what: "sessions")), from: "ctl", session: nil)
            guard case .reply(let reply)? = replies.first?.message else { return nil }
            return reply.result.arrayValue?.first?.objectValue?["lastActivity"]?.intValue
        }
        let start = Int(bus.now)
        func speak(_ message: Message, after milliseconds: Int64) -> Int? {
            bus.now += milliseconds
            bus.send(message, from: "kiosk/app")
            return lastActivity().map { $0 - start }
        }
        #expect(speak(.heartbeat(Heartbeat()), after: 1_500) == 1_500)
        #expect(speak(.heartbeat(Heartbeat()), after: 300) == 1_500)
        #expect(speak(.heartbeat(Heartbeat()), after: 800) == 2_600)
        #expect(speak(.bye(Bye()), after: 10) == 2_610)
    }

    @Test func aBusyDaemonStillTicksAndNoticesSilentPeers() throws {
        var bus = try Bus()
        _ = bus.hello(.presenter, "kiosk/main", name: "main")
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        let start = bus.now
        // The stepper talks every 20 ms; the presenter is silent. The next tick stays due, whatever the traffic.
        var ticks = 0
        while bus.now < start + 6_000 {
            bus.now += 20
            bus.send(.heartbeat(Heartbeat()), from: "kiosk/app")
            #expect(bus.coordinator.nextWakeUp() <= bus.now + 500)
            if bus.coordinator.nextWakeUp() <= bus.now {
                _ = bus.coordinator.tick(now: bus.now)
                ticks += 1
            }
        }
        #expect(ticks >= 10)
        #expect(bus.coordinator.counters.peersLost == 1)
    }
}
