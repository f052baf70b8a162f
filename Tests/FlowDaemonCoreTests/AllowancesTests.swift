import Testing

@testable import FlowDaemonCore

/// The flood and session-creation limits on their own: the allowances with flowd's clock given to each call, no
/// coordinator, no socket. Tried: a burst at and past twice the rate, a refill by elapsed time, the byte rate alone,
/// a message bigger than the byte bucket, no limit at all, a flood told once a second, a flood that goes on past
/// the forgetting time and one broken by a quiet second, sessions created past the minute's allowance, and quiet
/// peers forgotten.
@Suite struct AllowancesTests {
    private let rates = Allowances.Rates(messagesPerSecond: 10, bytesPerSecond: 0, sessionsPerMinute: 3)

    @Test func aBurstOfTwiceTheRatePassesAndTheNextIsDropped() {
        var allowances = Allowances()
        for _ in 0..<20 {
            #expect(allowances.admit(from: "p", bytes: 10, now: 0, rates: rates) == nil)
        }
        let drop = allowances.admit(from: "p", bytes: 10, now: 0, rates: rates)
        #expect(drop?.bound == "messageRate")
        #expect(drop?.warning == "more than 10 messages per second")
        #expect(drop?.forget == false)
        // Another peer has its own allowance.
        #expect(allowances.admit(from: "q", bytes: 10, now: 0, rates: rates) == nil)
    }

    @Test func timeRefillsTheBucketAtTheRate() {
        var allowances = Allowances()
        for _ in 0..<20 { _ = allowances.admit(from: "p", bytes: 1, now: 0, rates: rates) }
        #expect(allowances.admit(from: "p", bytes: 1, now: 50, rates: rates) != nil, "half a message refilled")
        #expect(allowances.admit(from: "p", bytes: 1, now: 100, rates: rates) == nil, "one message refilled")
        #expect(allowances.admit(from: "p", bytes: 1, now: 100, rates: rates) != nil)
    }

    @Test func theByteRateCountsBytes() {
        let bytes = Allowances.Rates(messagesPerSecond: 0, bytesPerSecond: 1000, sessionsPerMinute: 3)
        var allowances = Allowances()
        #expect(allowances.admit(from: "p", bytes: 1500, now: 0, rates: bytes) == nil)
        #expect(allowances.admit(from: "p", bytes: 400, now: 0, rates: bytes) == nil)
        let drop = allowances.admit(from: "p", bytes: 200, now: 0, rates: bytes)
        #expect(drop?.bound == "byteRate")
        #expect(drop?.warning == "more than 1000 bytes per second")
        #expect(allowances.admit(from: "p", bytes: 5000, now: 10_000, rates: bytes) != nil, "never fits the bucket")
    }

    @Test func withoutRatesEverythingPasses() {
        let none = Allowances.Rates(messagesPerSecond: 0, bytesPerSecond: 0, sessionsPerMinute: 3)
        var allowances = Allowances()
        for _ in 0..<10_000 {
            #expect(allowances.admit(from: "p", bytes: 1 << 20, now: 0, rates: none) == nil)
        }
        #expect(allowances.count == 0, "nothing is counted")
    }

    @Test func aFloodIsToldOnceASecondAndForgottenAfterFiveSeconds() {
        var allowances = Allowances()
        var warnings = 0
        var forgottenAt: Int64?
        // 100 messages a second, ten times the rate, for six seconds.
        for now in stride(from: Int64(0), through: 6000, by: 10) {
            guard let drop = allowances.admit(from: "p", bytes: 1, now: now, rates: rates) else { continue }
            if drop.warning != nil { warnings += 1 }
            if drop.forget, forgottenAt == nil { forgottenAt = now }
        }
        #expect(warnings == 6 || warnings == 7, "told once a second: \(warnings)")
        #expect(forgottenAt.map { $0 >= Allowances.floodingPeerForgottenAfter && $0 < 5300 } == true)
    }

    @Test func aQuietSecondEndsTheFlood() {
        var allowances = Allowances()
        var forgot = false
        // Flood for four seconds, pause more than a second, flood four more: never five seconds on end.
        for start in [Int64(0), 5200] {
            for now in stride(from: start, through: start + 4000, by: 10) {
                forgot = forgot || (allowances.admit(from: "p", bytes: 1, now: now, rates: rates)?.forget ?? false)
            }
        }
        #expect(!forgot)
    }

    @Test func sessionsAreCreatedWithinTheMinutesAllowance() {
        var allowances = Allowances()
        func create(_ peer: String, at now: Int64) -> Bool {
            allowances.createSession(by: peer, now: now, rates: rates)
        }
        for _ in 0..<3 {
            #expect(create("p", at: 0))
        }
        #expect(!create("p", at: 0))
        #expect(!create("p", at: 19_999), "one more every 20 s")
        #expect(create("p", at: 20_000))
        #expect(create("q", at: 20_000), "each peer its own")
    }

    @Test func quietPeersAreForgotten() {
        var allowances = Allowances()
        _ = allowances.admit(from: "p", bytes: 1, now: 0, rates: rates)
        _ = allowances.createSession(by: "p", now: 0, rates: rates)
        #expect(allowances.count == 2)
        allowances.forgetQuiet(now: 2000)
        #expect(allowances.count == 1, "a second's buckets are full after two seconds")
        allowances.forgetQuiet(now: 60_000)
        #expect(allowances.count == 0, "a minute's after a minute")
    }
}
