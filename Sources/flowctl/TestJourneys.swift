import ArgumentParser
import FlowBus
import FlowExplorer
import FlowSpec
import Foundation

/// `flowctl test JOURNEY...`: runs journey files against their flow file, in process or against a live flowd.
struct TestJourneys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run journey files (what a user does, and what they must see after each move) against a flow file.",
        discussion: """
            Each journey runs in a new session of its flow file (its `flows:`, relative to the journey, or --flows), \
            in process against the engine flowd runs: each move (a step from a stepper or a screen, a deep link, \
            a screen dismissed or a tab selected by the user, a guard's answer, session data) is made, the \
            presenters report what they show, and what the move expects (the step's fate, the visible screens, \
            every screen, the running flows) is compared. A journey stops at its first difference, shown as a \
            diff (- expected, + seen). Exits 1 when a journey fails or cannot be read. --junit writes a JUnit XML \
            report for CI systems. `flowd check --explore --write-journeys DIR` writes journeys that together run \
            every handler of a flow file.

            A journey file: `journey:` (its name), `flows:` (the flow file, relative to the journey) and `do:`, a \
            list of moves. A move is one of `step: NAME` (with `parameters:` and `from: {stepper: NAME}` or \
            `from: {screen: NAME}`), `deepLink: NAME` (with `parameters:`), `dismiss: SCREEN` or `selectTab: \
            SCREEN` (the user's gesture; `occurrence: N` for the Nth screen of that name), `guard: true|false` (the \
            answer to the question that waits; in process only), `sessionData: {key: K, value: V}`; and `expect:` \
            with any of `fate` (accepted, dropped, a drop reason, or unknownStep), `visible` (the screens a user \
            sees, by name, containers included: [app, dashboard, wishlist, WishlistTable]), `screens` (every \
            screen on screen, in order) and `flows` (the running flows, parents first). deploy/journeys has examples.

            With --live, each journey runs against the flowd the bus options reach (it must run the same flow \
            file), in a session of its own that is ended after: its steppers connect as stepper clients, the flow \
            file's presenters as presenter clients that report what they show, deep links and session data go \
            through an inspector; after each move flowctl waits (--patience) until flowd and the presenters agree, \
            then compares. A guard's answer is a move of journeys run in process only.

            Examples:
              flowctl test deploy/journeys/*.yaml
              flowctl test --junit journeys.xml deploy/journeys/first-run.yaml
              flowctl test --live deploy/journeys/first-run.yaml
            """
    )

    @Argument(help: "The journey files (YAML).")
    var journeys: [String]

    @Option(help: "The flow file to run every journey against (instead of each journey's `flows:`).")
    var flows: String?

    @Option(help: "Write a JUnit XML report to this file.")
    var junit: String?

    @Flag(help: "Run against the live flowd the bus options reach, not in process.")
    var live = false

    @Option(help: "With --live: how long flowd and the presenters may take to agree after a move, in milliseconds.")
    var patience = 5000

    @OptionGroup var bus: BusOptions

    func validate() throws {
        if journeys.isEmpty {
            throw ValidationError("name at least one journey file")
        }
        if patience < 1 {
            throw ValidationError("--patience is at least 1 millisecond")
        }
        if let flows, !FileManager.default.fileExists(atPath: flows) {
            throw ValidationError("--flows \(flows): there is no such file")
        }
    }

    func run() async throws {
        var results: [JourneyResult] = []
        var specifications: [String: FlowSpecification] = [:]
        for file in journeys {
            let started = Date()
            let result: JourneyResult
            do {
                let journey = try Journey.load(contentsOf: file)
                let flowFile = try flowFile(of: journey)
                if specifications[flowFile] == nil {
                    specifications[flowFile] = try FlowSpecification.load(contentsOf: flowFile)
                }
                guard let specification = specifications[flowFile] else { continue }
                let failure =
                    live
                    ? try await LiveJourney(
                        journey: journey,
                        specification: specification,
                        options: bus.clientOptions,
                        patience: .milliseconds(patience)
                    ).run()
                    : journey.run(on: specification)
                result = JourneyResult(
                    file: file,
                    name: journey.name,
                    moves: journey.moves.count,
                    failure: failure.map(\.description),
                    seconds: Date().timeIntervalSince(started)
                )
            } catch let error as FlowBusError where error.code == .unreachable {
                bus.sayUnreachable(error, at: bus.endpoints)
                throw ExitCode(69)
            } catch {
                let message =
                    (error as? FlowSpecError).map {
                        $0.diagnostics.isEmpty ? $0.message : $0.diagnostics.map(\.description).joined(separator: "\n")
                    } ?? "\(error)"
                result = JourneyResult(
                    file: file,
                    name: file,
                    moves: 0,
                    failure: message.isEmpty ? "\(error)" : message,
                    seconds: Date().timeIntervalSince(started),
                    isError: true
                )
            }
            print(result.line)
            results.append(result)
        }
        let failed = results.filter { $0.failure != nil }.count
        print("\(results.count) journey\(results.count == 1 ? "" : "s"), \(failed) failed")
        if let junit {
            do {
                try JourneyResult.junit(results).write(toFile: junit, atomically: true, encoding: .utf8)
            } catch {
                printError("\(junit): cannot write the JUnit report: \(error.localizedDescription)")
                throw ExitCode.failure
            }
        }
        if failed > 0 {
            throw ExitCode.failure
        }
    }

    /// The flow file a journey runs against: --flows, else its own `flows:`, relative to it.
    private func flowFile(of journey: Journey) throws -> String {
        if let flows {
            return flows
        }
        guard let named = journey.flows else {
            throw ValidationError("\(journey.file): the journey names no flow file (`flows:`); give one with --flows")
        }
        if named.hasPrefix("/") {
            return named
        }
        return URL(fileURLWithPath: journey.file).deletingLastPathComponent().appendingPathComponent(named)
            .standardizedFileURL.path
    }
}

/// How one journey went.
struct JourneyResult {
    let file: String
    let name: String
    let moves: Int
    /// The first difference (or why the journey could not run); `nil` when it passed.
    let failure: String?
    let seconds: Double
    var isError = false

    /// What `flowctl test` prints for it.
    var line: String {
        guard let failure else {
            return "ok    \(name) (\(moves) move\(moves == 1 ? "" : "s"))"
        }
        return "FAIL  \(name)\n"
            + failure.split(separator: "\n", omittingEmptySubsequences: false).map { "      \($0)" }
            .joined(separator: "\n")
    }

    /// A JUnit XML report: one test suite, a test case per journey, a failure (or an error) with its diff.
    static func junit(_ results: [JourneyResult]) -> String {
        let failures = results.filter { $0.failure != nil && !$0.isError }.count
        let errors = results.filter(\.isError).count
        let total = results.reduce(0) { $0 + $1.seconds }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites tests=\"\(results.count)\" failures=\"\(failures)\" errors=\"\(errors)\">\n"
        xml += "  <testsuite name=\"flowctl test\" tests=\"\(results.count)\" failures=\"\(failures)\" "
        xml += "errors=\"\(errors)\" time=\"\(String(format: "%.3f", total))\">\n"
        for result in results {
            xml += "    <testcase classname=\"\(escaped(result.file))\" name=\"\(escaped(result.name))\" "
            xml += "time=\"\(String(format: "%.3f", result.seconds))\""
            if let failure = result.failure {
                let kind = result.isError ? "error" : "failure"
                let first = failure.split(separator: "\n").first.map(String.init) ?? failure
                xml +=
                    ">\n      <\(kind) message=\"\(escaped(first))\">\(escaped(failure))</\(kind)>\n    </testcase>\n"
            } else {
                xml += "/>\n"
            }
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
