import ArgumentParser
import FlowExplorer
import FlowSpec
import Foundation

/// `flowd check FILE`: reads and checks a flow file without opening any socket.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a flow file and print its problems, or a summary; --explore runs it through every state.",
        discussion: """
            Prints every problem as FILE:LINE:COLUMN: error: MESSAGE, then their count, on standard error, and \
            exits 1; or prints "ok" with the number of flows, steps and screens and exits 0. With --format dot, prints the flow graph for \
            Graphviz instead of the summary.

            With --explore, runs a session of the file in process and tries, in every state it reaches, every input \
            that could come: each step from each live stepper and each screen a contribution takes steps from (with \
            a value of each parameter's type), deep links, the presenters reporting what they show, a tab selected, \
            a screen dismissed by the user, a guard's answers, the session data adapt rules read. It explores breadth \
            first, to --depth inputs from the start and --states states, and prints what a session can do wrong, \
            each with the flow file's line and a shortest path of inputs that shows it: handlers and flows nothing \
            reaches, dead ends, screens an ended flow leaves behind (orphaned UI), modals no step dismisses, steps \
            always dropped, steps a flow forwards that are dropped, commands that do not fit, and (warnings) stacks \
            that grow without bound. Exits 1 when there is an error (--strict: or a warning, or a bound that \
            stopped the exploration). --format json for \
            tools, --format dot for the explored graph. A state whose every flow shows what it showed in a state \
            tried already (its own screens, their visibility, its parent's) is not tried further: what a flow does \
            depends on that, not on a sibling tab; --exhaustive tries every combination (slower, same findings).

            Examples:
              flowd check deploy/flows/movies.yaml
              flowd check --format dot deploy/flows/movies.yaml | dot -Tsvg > flows.svg
              flowd check --explore deploy/flows/movies.yaml
              flowd check --explore --format json --depth 20 deploy/flows/movies.yaml
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, dot, json
    }

    @Argument(help: "The flow file (YAML).")
    var file: String

    @Option(
        help:
            "text (problems or a summary), dot (the flow graph; with --explore, the explored graph) or json (with --explore)."
    )
    var format: Format = .text

    @Flag(help: "Explore every state a session can reach, and report what it can do wrong.")
    var explore = false

    @Option(help: "With --explore: the most inputs on a path from the session's start (default: 40).")
    var depth: Int?

    @Option(help: "With --explore: the most states explored (default: 10 000).")
    var states: Int?

    @Flag(help: "With --explore: warnings fail the check too, and so does a bound that stops the exploration.")
    var strict = false

    @Flag(
        help:
            "With --explore: try every state, even one whose every flow shows what it showed in a state tried already (slower; finds the same)."
    )
    var exhaustive = false

    @Option(
        help:
            "With --explore: write journeys that together run every handler reached into this directory (`flowctl test` runs them)."
    )
    var writeJourneys: String?

    func validate() throws {
        if format == .json && !explore {
            throw ValidationError("--format json goes with --explore")
        }
        if !explore && (writeJourneys != nil || depth != nil || states != nil || strict || exhaustive) {
            throw ValidationError("--depth, --states, --strict, --exhaustive and --write-journeys go with --explore")
        }
        if (depth ?? 1) < 1 || (states ?? 1) < 1 {
            throw ValidationError("--depth and --states are at least 1")
        }
    }

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
        if explore {
            try explore(spec)
            return
        }
        switch format {
        case .text, .json:
            print("ok: \(file): \(spec.summary)")
        case .dot:
            print(FlowGraph.dot(spec), terminator: "")
        }
    }

    private func explore(_ spec: FlowSpecification) throws {
        let defaults = ExplorationBounds()
        var explorer = Explorer(
            spec,
            bounds: ExplorationBounds(depth: depth ?? defaults.depth, states: states ?? defaults.states),
            exhaustive: exhaustive
        )
        let exploration: Exploration
        do {
            exploration = try explorer.explore()
        } catch {
            printError("\(file): the session cannot start: \(error)")
            throw ExitCode.failure
        }
        if let directory = writeJourneys {
            try write(exploration, of: spec, to: directory)
        }
        switch format {
        case .text: print(exploration.text(), terminator: "")
        case .json: print(exploration.json(), terminator: "")
        case .dot: print(exploration.dot(), terminator: "")
        }
        if strict && !exploration.isComplete {
            printError("\(file): --strict: the exploration stopped at a bound; raise --depth or --states")
            throw ExitCode.failure
        }
        let failures = exploration.failures(strict: strict)
        if strict && failures.contains(where: { $0.severity == .warning }) {
            printError("\(file): --strict: warnings fail the check")
        }
        if !failures.isEmpty {
            throw ExitCode.failure
        }
    }
}

extension Check {
    /// Writes the journeys that cover every handler the exploration reached, and says so on standard error.
    private func write(_ exploration: Exploration, of spec: FlowSpecification, to directory: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let journeys = try exploration.journeys(of: spec, in: directory)
            for (name, journey) in journeys {
                let path = (directory as NSString).appendingPathComponent(name + ".yaml")
                try journey.yaml().write(toFile: path, atomically: true, encoding: .utf8)
            }
            let reached = exploration.reachedHandlers.count
            let declared = spec.flows.reduce(0) { $0 + $1.handlers.count }
            printError(
                "wrote \(journeys.count) journey\(journeys.count == 1 ? "" : "s") to \(directory): together they run the \(reached) handlers reached, of the \(declared) the file declares"
            )
        } catch {
            printError("\(directory): cannot write the journeys: \(error)")
            throw ExitCode.failure
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
