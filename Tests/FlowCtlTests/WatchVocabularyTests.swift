import FlowBusTesting
import FlowCore
import FlowInspector
import FlowWire
import Testing

/// One vocabulary for `flowctl watch`: what `--type` takes is what its lines say. Bad input tried: a word that is
/// neither a label nor a kind.
@Suite struct WatchVocabularyTests {
    @Test func everyKindsLabelIsTheOneItsLinesStartWith() {
        let formatter = WatchFormatter(colored: false, clock: .none)
        for kind in InspectionKind.all {
            let item = WatchedItem(kind: kind.rawValue, session: "s", sentAt: 0, fields: [:])
            let label = formatter.line(item, names: WatchNames()).split(separator: " ").dropFirst().first
            #expect(
                label.map(String.init) == WatchVocabulary.labels[kind],
                "\(kind.rawValue): \(String(describing: label))"
            )
        }
    }

    @Test func typeTakesLabelsAndKindsInAnyCase() throws {
        #expect(WatchVocabulary.kinds(for: "step") == ["stepFate"])
        #expect(WatchVocabulary.kinds(for: "STEPFATE") == ["stepFate"])
        #expect(WatchVocabulary.kinds(for: "stepfate") == ["stepFate"])
        #expect(WatchVocabulary.kinds(for: "Navigate") == ["willNavigate", "didNavigate"])
        #expect(WatchVocabulary.kinds(for: "peer") == ["registered", "unregistered"])
        #expect(WatchVocabulary.kinds(for: "bogus") == nil)
        let flowctl = try builtProduct("flowctl")
        let refused = try run(flowctl, ["watch", "--type", "bogus"])
        #expect(refused.status == 64 && refused.errors.contains("navigate"), "\(refused.errors)")
    }
}
