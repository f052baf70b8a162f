import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing

@testable import FlowDaemonCore

/// What one session may hold: presentables, session data and remembered senders. A peer granted a session can
/// fill it only to its limits; each limit is counted under `boundsHit` and says what to do.
@Suite struct SessionBoundsTests {
    @Test func aFlowThatShowsAScreenOnEveryStepStopsAtMaxPresentables() throws {
        var bus = try Bus(flows: tickerFlows) { $0.engine.maxPresentables = 10 }
        _ = bus.hello(.stepper, "kiosk/ticker", name: "ticker")
        _ = bus.hello(.presenter, "kiosk/main", name: "main")
        for tick in 1...25 {
            let replies = bus.send(
                .step(StepMessage(step: Step("tick", ["n": .int(tick)]), sequence: UInt64(tick))),
                from: "kiosk/ticker"
            )
            // Every tick is still navigated: only the screen that did not fit is left out.
            guard case .stepAck(let ack) = replies.first?.message else {
                Issue.record("tick \(tick) got \(replies)")
                continue
            }
            #expect(ack.fate.accepted)
        }
        let pushed = bus.commands(for: "main").flatMap(\.commands).filter { $0.operation == "push" }
        // The root stack and 9 screens; 16 pushes left out.
        #expect(pushed.count == 9)
        #expect(bus.coordinator.counters.boundsHit["presentables"] == 16)
        #expect(bus.coordinator.engine.inspect("kiosk")?.screens.nodes.count == 10)
    }

    @Test func sessionDataBeyondMaxSessionDataBytesIsRefusedAndNothingChanges() throws {
        var bus = try Bus { $0.engine.maxSessionDataBytes = 1024 }
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        let big = JSONValue.string(String(repeating: "x", count: 600))
        let first = bus.send(.sessionData(SessionDataMessage(key: "first", value: big)), from: "kiosk/app")
        #expect(error(first) == nil)
        // Tried: a second value that would pass the limit.
        let second = bus.send(.sessionData(SessionDataMessage(key: "second", value: big)), from: "kiosk/app")
        #expect(error(second)?.code == "sessionLimit")
        #expect(error(second)?.message.contains("maxSessionDataBytes") == true)
        #expect(second.first?.header.correlation == bus.messageID)
        #expect(bus.coordinator.engine.inspect("kiosk")?.sessionData.keys.sorted() == ["first"])
        #expect(bus.coordinator.counters.boundsHit["sessionData"] == 1)
        // Removing a key makes room.
        _ = bus.send(.sessionData(SessionDataMessage(key: "first", value: .null)), from: "kiosk/app")
        #expect(error(bus.send(.sessionData(SessionDataMessage(key: "second", value: big)), from: "kiosk/app")) == nil)
    }

    @Test func aSessionRemembersAtMostMaxSteppersPerSessionSendersAndKnownNamesAlwaysComeBack() throws {
        var bus = try Bus { $0.maxSteppersPerSession = 3 }
        for index in 1...3 {
            #expect(error(bus.hello(.stepper, "kiosk/s\(index)", name: "s\(index)")) == nil)
            _ = bus.send(.step(StepMessage(step: Step("appIsReady"), sequence: 1)), from: "kiosk/s\(index)")
            _ = bus.send(.bye(Bye()), from: "kiosk/s\(index)")
        }
        // Tried: a fourth name, as a stepper and as a presenter.
        let fourth = error(bus.hello(.stepper, "kiosk/s4", name: "s4"))
        #expect(fourth?.code == "sessionLimit")
        #expect(fourth?.message.contains("maxSteppersPerSession") == true)
        #expect(error(bus.hello(.presenter, "kiosk/p", name: "other"))?.code == "sessionLimit")
        // A name the session knows comes back (a restarted process), with its numbering.
        #expect(error(bus.hello(.stepper, "kiosk/s1-again", name: "s1")) == nil)
        guard case .welcome(let welcome) = bus.hello(.stepper, "kiosk/s2", name: "s2").first?.message else {
            Issue.record("s2 was not welcomed back")
            return
        }
        #expect(welcome.lastSequence == 1)
        // Other sessions are not concerned, and an inspector is never refused.
        #expect(error(bus.hello(.stepper, "other/s4", name: "s4", session: "other")) == nil)
        #expect(error(bus.hello(.inspector, "watcher", session: nil)) == nil)
        #expect(bus.coordinator.counters.boundsHit["steppersPerSession"] == 2)
        // Ending the session forgets its senders.
        bus.send(.query(Query(what: "endSession", arguments: ["session": "kiosk"])), from: "watcher", session: nil)
        #expect(bus.coordinator.acknowledgements.steppers.count(in: "kiosk") == 0)
    }
}
