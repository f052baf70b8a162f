import Testing

@testable import FlowDaemonCore

/// Subscriptions to topics flowd does not publish, on their own: bounded, the subscriber holding the most cut at
/// most once every 100 ms, and topics proven once flowd publishes them, looked at again once a second.
@Suite struct SubscriptionsTests {
    /// A topic of `size` bytes, different for each `index`.
    private func topic(_ index: Int, size: Int = 1024) -> [UInt8] {
        Array("zzz/\(index)/".utf8) + Array(repeating: UInt8(ascii: "x"), count: size)
    }

    @Test func pastTheBoundTheSubscriberHoldingTheMostIsCutAtMostEvery100ms() {
        var subscriptions = Subscriptions()
        var cut: [String?] = []
        let count = UnprovenSubscriptions.limit / 1024 + 2
        for index in 0..<count {
            cut.append(subscriptions.addUnproven(topic(index), address: index < 10 ? "small" : "big", now: 0))
        }
        #expect(cut.compactMap { $0 } == ["big"], "once, at time 0")
        let cutAt50 = subscriptions.addUnproven(topic(count), address: "big", now: 50)
        #expect(cutAt50 == nil, "50 ms later")
        let cutAt100 = subscriptions.addUnproven(topic(count + 1), address: "big", now: 100)
        #expect(cutAt100 == "big")
        let taken = subscriptions.takeSubscribersToCut()
        #expect(taken == ["big", "big"])
        let takenAgain = subscriptions.takeSubscribersToCut()
        #expect(takenAgain.isEmpty)
    }

    @Test func unprovenTopicsAreLookedAtAgainOnceASecond() {
        var subscriptions = Subscriptions()
        _ = subscriptions.addUnproven(topic(1), address: "a", now: 0)
        _ = subscriptions.addUnproven(topic(2), address: "a", now: 0)
        let topics = subscriptions.unprovenToRecheck(now: 0)
        #expect(topics?.count == 2)
        let toRecheckAt500 = subscriptions.unprovenToRecheck(now: 500)
        #expect(toRecheckAt500 == nil)
        subscriptions.proven([topic(1)])
        #expect(subscriptions.unproven.topics.keys.sorted { $0.lexicographicallyPrecedes($1) } == [topic(2)])
        let toRecheckAt1000 = subscriptions.unprovenToRecheck(now: 1000)
        #expect(toRecheckAt1000?.count == 1)
        subscriptions.removeUnproven(topic(2))
        let toRecheckAt2000 = subscriptions.unprovenToRecheck(now: 2000)
        #expect(toRecheckAt2000 == nil, "nothing left to look at")
    }
}

/// The coordinator hands the subscribers to cut to the server in the turn's effects, with nothing else to call.
@Suite struct SubscribersCutInTheTurnTests {
    @Test func theSubscriberHoldingTheMostUnprovenTopicsIsInTheTurnsEffects() throws {
        var bus = try Bus()
        let topicSize = 1024
        for index in 0...(UnprovenSubscriptions.limit / topicSize) {
            let topic = Array("zzz/\(index)/".utf8) + Array(repeating: UInt8(ascii: "x"), count: topicSize)
            _ = bus.coordinator.subscription(topic, subscribed: true, address: "10.0.0.7", now: bus.now)
        }
        let effects = bus.coordinator.finishTurn(sending: [])
        #expect(effects.subscribersToCut == ["10.0.0.7"])
        #expect(bus.coordinator.finishTurn(sending: []).subscribersToCut.isEmpty, "handed over once")
    }
}
