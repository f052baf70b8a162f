import Testing

@testable import FlowDaemon

/// The gate's bounds on keys, which the process tests reach only once each: a ban that doubles while the key
/// offends again, up to ten minutes, and the most handshakes a key makes in a window.
@Suite struct ConnectionGateTests {
    @Test func aKeyThatOffendsAgainIsRefusedTwiceAsLongUpToTenMinutes() {
        let gate = ConnectionGate(cap: 10)
        #expect(!gate.keyBanned("k"))
        let lengths = (0..<8).map { _ in gate.banKey(of: "k") }
        #expect(
            lengths.prefix(7) == [
                .seconds(10), .seconds(20), .seconds(40), .seconds(80), .seconds(160), .seconds(320), .seconds(600),
            ]
        )
        #expect(lengths.last == .seconds(600))
        #expect(gate.keyBanned("k"))
        #expect(!gate.keyBanned("other"))
    }

    @Test func aKeyMakesAtMostThirtyHandshakesAWindowAndOthersAreNotConcerned() {
        let gate = ConnectionGate(cap: 10)
        let results = (0..<(ConnectionGate.handshakesPerWindow + 2)).map { _ in gate.countHandshake(of: "k") }
        #expect(results.prefix(ConnectionGate.handshakesPerWindow).allSatisfy { $0.allowed && !$0.firstRefused })
        #expect(results[ConnectionGate.handshakesPerWindow] == (allowed: false, firstRefused: true))
        #expect(results[ConnectionGate.handshakesPerWindow + 1] == (allowed: false, firstRefused: false))
        #expect(gate.countHandshake(of: "other").allowed)
    }
}
