import FlowBus
import FlowBusTesting
import Foundation
import Testing

/// The getting-started article as a newcomer uses it: its samples are the example programs the package builds (so
/// they compile), its manifest is one SwiftPM reads, and the programs, told where a private flowd is by
/// `FLOWBUS_CONTROL` and `FLOWBUS_EVENTS` only, drive the movie app — or say clearly that flowd is not there.
@Suite struct GettingStartedTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let article = root + "/Sources/FlowBus/FlowBus.docc/GettingStarted.md"
    static let examples = ["AppStepper", "Presenter", "ParentalGuard"]

    /// The fenced blocks of `language` in the article, in order.
    static func blocks(_ language: String) throws -> [String] {
        let text = try String(contentsOfFile: article, encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let lines = current {
                if line == "```" {
                    blocks.append(lines.joined(separator: "\n") + "\n")
                    current = nil
                } else {
                    current = lines + [line]
                }
            } else if line == "```\(language)" {
                current = []
            }
        }
        return blocks
    }

    @Test func everySwiftProgramInTheArticleIsAnExampleThePackageBuilds() throws {
        let programs = try Self.blocks("swift").filter { $0.hasPrefix("import FlowBus") }
        let files = try Self.examples.map { name in
            try String(contentsOfFile: Self.root + "/Examples/GettingStarted/\(name)/\(name).swift", encoding: .utf8)
        }
        #expect(programs == files, "the article's programs and Examples/GettingStarted differ")
        for name in ["example-app-stepper", "example-presenter", "example-parental-guard"] {
            #expect(FileManager.default.isExecutableFile(atPath: try builtProduct(name)))
        }
    }

    /// The manifest as SwiftPM reads it (without resolving: that would fetch FlowBus's dependencies), with the rule
    /// the article states: from a path, the package is named after its folder.
    @Test func theArticlesManifestIsOneSwiftPMReads() throws {
        let manifest = try #require(try Self.blocks("swift").first { $0.contains("import PackageDescription") })
        let directory = uniqueDirectory("manifest")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/kiosk", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory + "/flowbus", withDestinationPath: Self.root)
        try manifest.write(toFile: directory + "/kiosk/Package.swift", atomically: true, encoding: .utf8)
        let swift = ProcessInfo.processInfo.environment["PATH"].flatMap { path in
            path.split(separator: ":").map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        let dumped = try run(try #require(swift), ["package", "dump-package"], in: directory + "/kiosk")
        #expect(dumped.status == 0, "\(dumped.errors)")
        let package = try #require(try JSONSerialization.jsonObject(with: Data(dumped.output.utf8)) as? [String: Any])
        let dependencies = package["dependencies"] as? [[String: Any]] ?? []
        #expect(dependencies.count == 1)
        #expect(dumped.output.contains("\"identity\" : \"flowbus\""), "\(dumped.output)")
        // The target depends on product FlowBus of the package named `flowbus`, as the path's folder is (a wrong
        // name here fails only at build time, which this test cannot afford: it is checked as written).
        let targets = package["targets"] as? [[String: Any]] ?? []
        let products = targets.flatMap { $0["dependencies"] as? [[String: Any]] ?? [] }
            .compactMap { $0["product"] as? [Any] }
        #expect(products.count == 1)
        #expect(products.first?.first as? String == "FlowBus")
        #expect(products.first?.dropFirst().first as? String == "flowbus", "\(products)")
    }

    @Test func theExamplesDriveTheMovieAppOnAPrivateFlowdFoundThroughTheEnvironment() async throws {
        let daemon = try Daemon(.ipc, flows: demoFlows, ["--ephemeral"])
        let environment = ["FLOWBUS_CONTROL": daemon.endpoints.control, "FLOWBUS_EVENTS": daemon.endpoints.events]
        let presenter = try ChildProcess("example-presenter", [], environment: environment)
        // The presenter is there first (its first update, the session's empty window).
        try presenter.waitForOutput(containing: "main:", within: .seconds(20))
        let stepper = try ChildProcess("example-app-stepper", [], environment: environment)
        let said = try stepper.waitForExit(within: .seconds(20))
        #expect(stepper.process.terminationStatus == 0, "\(said)")
        #expect(said.contains("accepted by"))
        // The presenter saw the dashboard, tapped the movie list once, and flowd took the tap.
        try presenter.waitForOutput(containing: "tap: accepted by", within: .seconds(20))
        try presenter.waitForOutput(containing: "MovieDetail", within: .seconds(20))
        #expect(presenter.output.components(separatedBy: "tap:").count == 2, "\(presenter.output)")
        // flowd's view of the screen is the presenter's: the detail visible, the list under it hidden.
        try await eventually("flowd sees what the presenter shows") {
            let screens = try await daemon.screens(session: "kiosk-7")
            let visibility = { (name: String) in screens.last { $0["name"] == .string(name) }?["visibility"] }
            return visibility("MovieDetail") == "visible" && visibility("WishlistTable") == "hidden"
        }
        presenter.terminate()
        #expect(daemon.process.signal(SIGTERM) == 0)
    }

    @Test func anExampleWithoutFlowdSaysSoAndExits69() throws {
        let nowhere = uniqueDirectory("nowhere")
        let stepper = try ChildProcess(
            "example-app-stepper",
            [],
            environment: ["FLOWBUS_CONTROL": "ipc://\(nowhere)/control", "FLOWBUS_EVENTS": "ipc://\(nowhere)/events"]
        )
        let said = try stepper.waitForExit(within: .seconds(20))
        #expect(stepper.process.terminationStatus == 69)
        #expect(said.hasPrefix("app stepper: flowd did not answer at ipc://\(nowhere)/control"), "\(said)")
        #expect(!said.contains("Fatal error"))
    }
}
