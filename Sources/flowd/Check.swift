import ArgumentParser
import FlowSpec
import Foundation

/// `flowd check FILE`: reads and checks a flow file without opening any socket.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a flow file and print its problems, or a summary.",
        discussion: """
            Prints every problem as FILE:LINE:COLUMN: error: MESSAGE, then their count, on standard error, and \
            exits 1; or prints "ok" with the number of flows, steps and screens and exits 0. With --format dot, prints the flow graph for \
            Graphviz instead of the summary.

            Examples:
              flowd check deploy/flows/movies.yaml
              flowd check --format dot deploy/flows/movies.yaml | dot -Tsvg > flows.svg
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, dot
    }

    @Argument(help: "The flow file (YAML).")
    var file: String

    @Option(help: "text (problems or a summary) or dot (the flow graph).")
    var format: Format = .text

    func run() throws {
        let spec: FlowSpecification
        do {
            spec = try FlowSpecification.load(contentsOf: file)
        } catch {
            // The problems and their count on one stream, as a compiler's.
            for diagnostic in error.diagnostics {
                printError("\(diagnostic)")
            }
            let count = error.diagnostics.count
            printError(error.diagnostics.isEmpty ? error.message : "\(file): \(count) problem\(count == 1 ? "" : "s")")
            throw ExitCode.failure
        }
        switch format {
        case .text:
            print("ok: \(file): \(spec.summary)")
        case .dot:
            print(FlowGraph.dot(spec), terminator: "")
        }
    }
}

/// Writes a line to standard error.
func printError(_ message: String) {
    var standardError = StandardError()
    print(message, to: &standardError)
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}
