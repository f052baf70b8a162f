import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing

/// The fuzzer's committed inputs: the seed corpus holds a valid message of every type (each decodes), and every
/// input of the corpus and of past findings (Fuzz/regressions) passes flowfuzz's checks, replayed by the built
/// flowfuzz exactly as the fuzzer runs them.
@Suite struct FuzzCorpusTests {
    let corpus = repositoryRoot.appendingPathComponent("Fuzz/corpus").path
    let regressions = repositoryRoot.appendingPathComponent("Fuzz/regressions").path

    @Test func theSeedCorpusHasAValidMessageOfEveryType() throws {
        let codec = WireCodec()
        var types: Set<MessageType> = []
        for name in try FileManager.default.contentsOfDirectory(atPath: corpus) where name.hasPrefix("wire-") {
            let input = Array(try Data(contentsOf: URL(fileURLWithPath: corpus + "/" + name)))
            #expect(input.first == 1, "\(name) does not select the codec")
            let frames = input.dropFirst().split(separator: 0x1F, omittingEmptySubsequences: false).map(Array.init)
            types.insert(try codec.decode(frames).message.type)
        }
        #expect(types == Set(MessageType.allCases))
    }

    @Test func everyCommittedInputPassesTheFuzzersChecks() throws {
        let replay = try run(try builtProduct("flowfuzz"), [corpus, regressions])
        #expect(replay.status == 0, "\(replay.errors)")
        #expect(replay.output.contains("every check held"))
    }
}
