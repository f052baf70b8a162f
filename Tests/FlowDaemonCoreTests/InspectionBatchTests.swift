import FlowCore
import FlowDaemonCore
import FlowWire
import Testing

/// The batched form of the inspection stream (EVENTS on `inb/<session>/`): what each turn of flowd's loop
/// produced for a session, in one message.
@Suite struct InspectionBatchTests {
    /// An inspector, and two sessions with a stepper and a presenter each; a few steps, one unknown.
    private func journey(_ bus: inout Bus) {
        _ = bus.hello(.inspector, "flowctl", session: nil)
        for session in ["kiosk", "lobby"] {
            _ = bus.hello(.presenter, "\(session)/main", name: "main", session: session)
            _ = bus.hello(.stepper, "\(session)/app", name: "app", session: session)
        }
        for (sequence, step) in ["onboardingIsRequired", "teleport", "dashboardIsRequired"].enumerated() {
            for session in ["kiosk", "lobby"] {
                let message = StepMessage(step: Step(step), sequence: UInt64(sequence + 1))
                bus.send(.step(message), from: "\(session)/app", session: session)
            }
        }
    }

    @Test func aTurnsEventsArePublishedOncePerSessionInTheOrderOfTheEventForm() throws {
        var bus = try Bus()
        _ = bus.coordinator.subscription(Array("ins/".utf8), subscribed: true, now: bus.now)
        _ = bus.coordinator.subscription(Array("inb/".utf8), subscribed: true, now: bus.now)
        journey(&bus)
        #expect(bus.batches().isEmpty, "nothing batched goes out before the turn ends")
        bus.publishDue()

        let batches = bus.batches()
        #expect(batches.map(\.topic) == ["inb/-/", "inb/kiosk/", "inb/lobby/"])
        #expect(batches.map(\.batch.session) == [nil, "kiosk", "lobby"])
        for (_, batch) in batches {
            // The same events, in the same order, as the one-event-per-message form.
            let single = bus.events().filter { $0.session == batch.session }
            let events = batch.events.filter { $0.kind != "commands" }
            #expect(events.map(\.kind) == single.map(\.kind))
            #expect(events.map(\.fields) == single.map(\.fields))
            #expect(events.allSatisfy { $0.at == bus.now })
        }
        // Each session's command batches are in its EVENTS, after the navigation that produced them.
        let kiosk = try #require(batches.first { $0.batch.session == "kiosk" }?.batch.events)
        let commands = kiosk.filter { $0.kind == "commands" }.map(\.fields)
        #expect(commands == bus.commands(for: "main").map { $0.wireValue.objectValue })
        #expect(!commands.isEmpty)
        let isDashboard = { (entry: InspectionBatch.Entry) in
            entry.fields["step"]?.objectValue?["name"] == "dashboardIsRequired"
        }
        let navigation = try #require(kiosk.firstIndex { $0.kind == "didNavigate" && isDashboard($0) })
        let itsCommands = try #require(kiosk.firstIndex { $0.kind == "commands" && isDashboard($0) })
        #expect(navigation < itsCommands)
        #expect(kiosk.contains { $0.kind == "error" && $0.fields["code"] == "unknownStep" })

        // The next turn starts empty.
        let count = batches.count
        bus.publishDue()
        #expect(bus.batches().count == count)
    }

    @Test func batchedEventsWaitAtMostTheDelayThenGoOutTogether() throws {
        var bus = try Bus(inspectionBatchDelay: .milliseconds(5))
        _ = bus.coordinator.subscription(Array("inb/".utf8), subscribed: true, now: bus.now)
        #expect(bus.coordinator.nextWakeUp() == bus.coordinator.nextTick(), "nothing waits yet")
        _ = bus.hello(.presenter, "kiosk/main", name: "main")
        let first = bus.now
        #expect(bus.coordinator.nextWakeUp() == first + 5)
        bus.now += 3
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        bus.send(.step(StepMessage(step: Step("onboardingIsRequired"), sequence: 1)), from: "kiosk/app")
        bus.publishDue()
        #expect(bus.batches().isEmpty, "the oldest event has waited 3 ms of 5")
        #expect(bus.coordinator.nextWakeUp() == first + 5)

        bus.now = first + 5
        bus.publishDue()
        let batches = bus.batches().map(\.batch)
        #expect(batches.count == 1, "one message for both turns")
        let times = batches.flatMap(\.events).map(\.at)
        #expect(times.first == first)
        #expect(times.last == first + 3)
        #expect(bus.coordinator.nextWakeUp() == bus.coordinator.nextTick())
    }

    @Test func aLongTurnIsPublishedInSeveralBatches() throws {
        var bus = try Bus()
        _ = bus.coordinator.subscription(Array("inb/kiosk/".utf8), subscribed: true, now: bus.now)
        _ = bus.coordinator.subscription(Array("ins/kiosk/".utf8), subscribed: true, now: bus.now)
        _ = bus.hello(.presenter, "kiosk/main", name: "main")
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        for sequence in 1...600 {
            bus.send(.step(StepMessage(step: Step("teleport"), sequence: UInt64(sequence))), from: "kiosk/app")
        }
        bus.publishDue()
        let batches = bus.batches().map(\.batch)
        #expect(batches.count > 1)
        #expect(batches.allSatisfy { $0.events.count <= 512 && !$0.events.isEmpty })
        let kinds = batches.flatMap(\.events).map(\.kind).filter { $0 != "commands" }
        #expect(kinds == bus.events().filter { $0.session == "kiosk" }.map(\.kind))
    }

    /// Subscriptions tried: `ins/` only, `inb/` only, the empty topic, `in` (a prefix of both), `inb/kiosk/`, and
    /// each one ended.
    @Test(arguments: [
        ("ins/", true, false), ("inb/", false, true), ("", true, true), ("in", true, true), ("inb/kiosk/", false, true),
        ("cmd/", false, false),
    ])
    func eachFormIsPublishedOnlyWhileSomeoneSubscribesToIt(topic: String, perEvent: Bool, batched: Bool) throws {
        var bus = try Bus()
        _ = bus.coordinator.subscription(Array(topic.utf8), subscribed: true, now: bus.now)
        journey(&bus)
        bus.publishDue()
        #expect(!bus.events().isEmpty == perEvent)
        #expect(!bus.batches().isEmpty == batched)

        _ = bus.coordinator.subscription(Array(topic.utf8), subscribed: false, now: bus.now)
        let published = bus.sent.count
        bus.send(.step(StepMessage(step: Step("teleport"), sequence: 4)), from: "kiosk/app")
        bus.publishDue()
        #expect(
            !bus.sent[published...].contains { outgoing in
                if case .publish(let topic, _) = outgoing {
                    topic.hasPrefix("ins/") || topic.hasPrefix("inb/")
                } else {
                    false
                }
            }
        )
    }
}
