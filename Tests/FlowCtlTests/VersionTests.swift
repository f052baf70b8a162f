import FlowBusTesting
import Foundation
import Testing

/// `flowd --version` and `flowctl --version`: the version and the commit the binaries were built from.
@Suite struct VersionTests {
    /// The commit git says the repository is at (twelve digits), as the build read it.
    func repositoryCommit() throws -> String? {
        let git = try run("/usr/bin/git", ["-C", repositoryRoot.path, "rev-parse", "--short=12", "HEAD"])
        return git.status == 0 ? git.output.trimmingCharacters(in: .whitespacesAndNewlines) : nil
    }

    @Test(arguments: ["flowd", "flowctl"])
    func versionNamesTheVersionAndTheCommit(program: String) throws {
        let printed = try run(try builtProduct(program), ["--version"])
        #expect(printed.status == 0, "\(printed.errors)")
        let line = printed.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(line.hasPrefix("\(program) 0."), "\(line)")
        let commit = try #require(try repositoryCommit(), "the tests run in a git checkout")
        // The commit may carry -dirty (a tree with uncommitted changes), never "unknown" in a checkout.
        #expect(line.contains("(commit \(commit)"), "\(line) does not name \(commit)")
    }
}
