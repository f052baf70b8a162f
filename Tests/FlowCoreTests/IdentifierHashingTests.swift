import FlowCore
import Testing

/// Numbered ids (flows, presentables, step tokens) hash with their tag's seeded mix, names with the standard hash:
/// a dictionary of them gets what it needs (every bit of the number moves the hash, and the seed changes it).
@Suite struct IdentifierHashingTests {
    @Test func numberedIdsHashWithTheirTagsMixAndNamesWithTheStandardHash() {
        #expect(PresentableID(7)._rawHashValue(seed: 1) == PresentableTag.hash(7, seed: 1))
        #expect(StepToken(7)._rawHashValue(seed: 1) == StepTokenTag.hash(7, seed: 1))
        #expect(PresentableTag.hash(7, seed: 1) != PresentableTag.hash(7, seed: 2))
        // Not the standard hash of the number (SipHash, which the mix replaces).
        #expect(PresentableID(7)._rawHashValue(seed: 1) != UInt32(7)._rawHashValue(seed: 1))
        #expect(SessionID("kiosk")._rawHashValue(seed: 1) == "kiosk"._rawHashValue(seed: 1))
    }

    /// Consecutive ids — what the engine allocates — land in buckets all over a table, not in a run of them.
    @Test func consecutiveIdsSpreadOverATablesBuckets() {
        let buckets = Set((0..<1024).map { PresentableTag.hash(UInt32($0), seed: 12345) & 1023 })
        // A uniform hash fills about 1 - 1/e of 1024 buckets with 1024 keys (647).
        #expect(buckets.count > 600, "\(buckets.count) buckets of 1024")
        var table: [PresentableID: Int] = [:]
        for id in 0..<100_000 { table[PresentableID(UInt32(id))] = id }
        #expect(table.count == 100_000 && table[PresentableID(54321)] == 54321)
    }
}
