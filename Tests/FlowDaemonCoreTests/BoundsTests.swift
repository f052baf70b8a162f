import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing

@testable import FlowDaemonCore

/// The coordinator's bounds: identifiers, sessions in all and per peer, bytes per second, nesting, and peers that
/// do not read their replies. Each refusal is an ERROR with a clear code (and `correlation`), counted under
/// `boundsHit`, and changes nothing.
@Suite struct BoundsTests {
    let long = String(repeating: "x", count: WireLimits.maxIdentifierLength + 1)
    let longest = String(repeating: "y", count: WireLimits.maxIdentifierLength)

    @Test func idsNamesSessionsAndStepNamesOverTheLimitAreRefusedNamingTheField() throws {
        var bus = try Bus()
        // Tried: a 129-byte id, name and session in HELLO, a 129-byte step name, a 129-byte session-data key.
        let tooLongID = error(bus.hello(.stepper, long, session: "kiosk"))
        #expect(tooLongID?.code == "tooLong")
        #expect(tooLongID?.message.hasPrefix("id is 129 bytes long") == true)
        #expect(error(bus.hello(.stepper, "kiosk/app", name: long))?.message.hasPrefix("name is 129") == true)
        #expect(error(bus.hello(.stepper, "kiosk/app", session: long))?.message.hasPrefix("session is 129") == true)
        #expect(bus.coordinator.sessions.isEmpty)
        // 128 bytes are fine.
        #expect(error(bus.hello(.stepper, "kiosk/app", name: longest)) == nil)
        let step = bus.send(.step(StepMessage(step: Step(long), sequence: 1)), from: "kiosk/app")
        #expect(error(step)?.code == "tooLong")
        #expect(error(step)?.message.hasPrefix("step.name is 129") == true)
        #expect(step.first?.header.correlation == bus.messageID)
        let data = bus.send(.sessionData(SessionDataMessage(key: long, value: .bool(true))), from: "kiosk/app")
        #expect(error(data)?.message.hasPrefix("key is 129") == true)
        #expect(bus.coordinator.counters.errors["tooLong"] == 5)
    }

    @Test func sessionsAreBoundedInAllAndPerPeerPerMinute() throws {
        var bus = try Bus {
            $0.maxSessions = 3
            $0.sessionsPerPeerPerMinute = 2
        }
        #expect(error(bus.hello(.stepper, "roamer", name: "app", session: "s1")) == nil)
        #expect(error(bus.hello(.stepper, "roamer", name: "app", session: "s2")) == nil)
        let third = error(bus.hello(.stepper, "roamer", name: "app", session: "s3"))
        #expect(third?.code == "sessionLimit")
        #expect(third?.message.contains("sessionsPerPeerPerMinute") == true)
        // Joining a session that exists creates nothing: allowed.
        #expect(error(bus.hello(.stepper, "roamer", name: "app", session: "s1")) == nil)
        // Half a minute later, one more.
        bus.now += 30_000
        #expect(error(bus.hello(.stepper, "roamer", name: "app", session: "s3")) == nil)
        // Another peer, but flowd holds 3 sessions: its limit.
        let full = error(bus.hello(.stepper, "other", name: "app", session: "s4"))
        #expect(full?.code == "sessionLimit")
        #expect(full?.message.contains("maxSessions") == true)
        #expect(bus.coordinator.sessions.count == 3)
        #expect(bus.coordinator.counters.boundsHit == ["sessionsPerPeer": 1, "sessions": 1])
        #expect(bus.coordinator.counters.errors["sessionLimit"] == 2)
    }

    @Test func aPeerOverItsByteRateIsRefusedThenForgottenIfItFloodsOn() throws {
        var bus = try Bus { $0.peerByteRate = 10_000 }
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        let padding = JSONValue.string(String(repeating: "p", count: 3_000))
        // A burst of twice the rate: about six messages of 3 KB pass, then they are dropped unread.
        var answered = 0
        var floods = 0
        for sequence in 1...20 {
            let replies = bus.send(
                .step(StepMessage(step: Step("unknownButPadded", ["pad": padding]), sequence: UInt64(sequence))),
                from: "kiosk/app"
            )
            answered +=
                replies.filter { if case .error(let error) = $0.message { error.code != "flood" } else { true } }
                .count
            floods +=
                replies.filter { if case .error(let error) = $0.message { error.code == "flood" } else { false } }
                .count
        }
        #expect(answered == 6)
        // One flood ERROR per second, not one per message.
        #expect(floods == 1)
        #expect(bus.coordinator.counters.boundsHit["byteRate"] == 14)
        // Flooding on for 5 s: forgotten, as a silent peer is.
        for _ in 0..<600 {
            bus.now += 10
            _ = bus.send(
                .step(StepMessage(step: Step("unknownButPadded", ["pad": padding]), sequence: 99)),
                from: "kiosk/app"
            )
        }
        #expect(bus.coordinator.counters.boundsHit["floodingPeer"] == 1)
        #expect(bus.coordinator.peers["kiosk/app"] == nil)
        let after = bus.send(.heartbeat(Heartbeat()), from: "kiosk/app")
        #expect(after.isEmpty || error(after)?.code == "notRegistered" || error(after)?.code == "flood")
    }

    @Test func bodiesNestedDeeperThanTheLimitAreRefusedBeforeTheyAreRead() throws {
        var bus = try Bus()
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        func nested(_ depth: Int) -> JSONValue {
            (0..<depth).reduce(JSONValue.int(1)) { inner, _ in .array([inner]) }
        }
        // The body, the step and its parameters take three levels.
        let deep = bus.send(
            .step(StepMessage(step: Step("appIsReady", ["deep": nested(30)]), sequence: 1)),
            from: "kiosk/app"
        )
        #expect(error(deep)?.code == "malformedBody")
        #expect(error(deep)?.message.contains("nest deeper than \(WireLimits.maxNesting)") == true)
        let fine = bus.send(
            .step(StepMessage(step: Step("appIsReady", ["deep": nested(20)]), sequence: 1)),
            from: "kiosk/app"
        )
        #expect(error(fine)?.code != "malformedBody")
    }

    @Test func aPeerThatDoesNotReadItsRepliesIsForgottenAfterFiveSeconds() throws {
        var bus = try Bus()
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        _ = bus.coordinator.repliesDropped(["kiosk/app": 3], now: bus.now)
        bus.now += 4_000
        _ = bus.coordinator.repliesDropped(["kiosk/app": 2], now: bus.now)
        #expect(bus.coordinator.peers["kiosk/app"] != nil)
        bus.now += 1_000
        _ = bus.coordinator.repliesDropped(["kiosk/app": 1], now: bus.now)
        #expect(bus.coordinator.peers["kiosk/app"] == nil)
        #expect(bus.coordinator.counters.boundsHit["replyQueue"] == 6)
        // Drops far apart are separate episodes: a peer that reads in between is kept.
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        _ = bus.coordinator.repliesDropped(["kiosk/app": 1], now: bus.now)
        bus.now += 6_000
        _ = bus.coordinator.repliesDropped(["kiosk/app": 1], now: bus.now)
        #expect(bus.coordinator.peers["kiosk/app"] != nil)
    }

    @Test func sessionsAndRegistrationsComePageByPage() throws {
        var bus = try Bus { $0.sessionsPerPeerPerMinute = 10_000 }
        for index in 1...1_205 {
            _ = bus.hello(.stepper, "roamer-\(index % 3)", name: "app", session: "s\(String(format: "%04d", index))")
        }
        _ = bus.hello(.inspector, "probe", session: nil)
        func sessions(_ arguments: JSONObject) -> [String] {
            let replies = bus.send(.query(Query(what: "sessions", arguments: arguments)), from: "probe", session: nil)
            let result = replies.compactMap { if case .reply(let reply) = $0.message { reply.result } else { nil } }
            return result.first?.arrayValue?.compactMap { $0.objectValue?["session"]?.stringValue } ?? []
        }
        // At most a thousand a page, sorted; the next page after the last one; a limit asked for is kept.
        let first = sessions([:])
        #expect(first.count == 1_000)
        #expect(first.first == "s0001" && first == first.sorted())
        let second = sessions(["after": .string(first.last!)])
        #expect(second.count == 205 && second.first == "s1001" && second.last == "s1205")
        #expect(sessions(["limit": 3, "after": "s0010"]) == ["s0011", "s0012", "s0013"])
        #expect(sessions(["limit": 5_000]).count == 1_000)
        #expect(sessions(["after": "s9999"]).isEmpty)
    }
}
