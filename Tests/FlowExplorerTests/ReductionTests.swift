import FlowCore
import FlowExplorer
import FlowSpec
import Foundation
import Testing

/// The explorer's reduction (``FlowView``): a state whose every flow shows what it showed in a state tried already
/// is not tried further. It must find what trying every state finds.
@Suite struct ReductionTests {
    static func explore(_ name: String, exhaustive: Bool) throws -> Exploration {
        let path = PlantedDefectTests.flows.appendingPathComponent(name).path
        var explorer = Explorer(try FlowSpecification.load(contentsOf: path), exhaustive: exhaustive)
        return try explorer.explore()
    }

    /// Each finding whole: kind, severity, place and message.
    static func findings(_ exploration: Exploration) -> [String] {
        exploration.findings.map {
            "\($0.kind.rawValue) \($0.severity.rawValue) \($0.location.map { "\($0.line):\($0.column)" } ?? "-") \($0.message)"
        }.sorted()
    }

    static let files =
        (try? FileManager.default.contentsOfDirectory(atPath: PlantedDefectTests.flows.path))?
        .filter { $0.hasSuffix(".yaml") }.sorted() ?? []

    @Test(arguments: files)
    func theReductionFindsWhatTryingEveryStateFinds(file: String) throws {
        let every = try Self.explore(file, exhaustive: true)
        let reduced = try Self.explore(file, exhaustive: false)
        #expect(every.isComplete && reduced.isComplete)
        #expect(every.reducedCount == 0)
        #expect(Self.findings(reduced) == Self.findings(every))
        #expect(reduced.transitionCount <= every.transitionCount)
    }

    @Test func theFilesWithIndependentPartsAreReduced() throws {
        #expect(Self.files.count >= 9)
        for file in ["chain.yaml", "modals.yaml"] {
            let every = try Self.explore(file, exhaustive: true)
            let reduced = try Self.explore(file, exhaustive: false)
            #expect(reduced.reducedCount > 0)
            #expect(reduced.transitionCount < every.transitionCount)
        }
    }

    /// Two windows that each get stuck on their own, two inputs from their start: a dead end only when both are.
    /// Each window's stuck view is met with the other one still going, so a reduction that stopped at views met
    /// already would never put the two together; a state holding a stuck flow is tried further.
    @Test func aDeadEndOfTwoWindowsStuckApartIsFound() throws {
        let exploration = try Self.explore("chain.yaml", exhaustive: false)
        let deadEnd = try #require(exploration.findings.first { $0.kind == .deadEnd })
        #expect(deadEnd.severity == .error)
        #expect(deadEnd.message.contains("LeftStuck") && deadEnd.message.contains("RightStuck"))
        var driver = try SessionDriver(
            try FlowSpecification.load(contentsOf: PlantedDefectTests.flows.appendingPathComponent("chain.yaml").path)
        )
        _ = try driver.apply(.reportShown)
        for input in deadEnd.path {
            _ = try driver.apply(input)
            _ = try driver.apply(.reportShown)
        }
        let shown = try #require(driver.inspection).screens.nodes.values.map(\.description.name)
        #expect(shown.contains("LeftStuck") && shown.contains("RightStuck"))
    }

    /// A modal the left window presents and nothing dismisses is found while the right window changes beneath
    /// the reduction; the one that closes itself is not reported.
    @Test func aModalNothingDismissesIsFoundBesideAnotherWindow() throws {
        let exploration = try Self.explore("modals.yaml", exhaustive: false)
        let modals = exploration.findings.filter { $0.kind == .undismissableModal }
        #expect(modals.map { $0.location?.line ?? 0 } == [43])
        #expect(modals.first?.message.contains("Warning") == true)
    }
}
