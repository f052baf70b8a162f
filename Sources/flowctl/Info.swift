import ArgumentParser
import FlowInspector
import Foundation

/// `flowctl info FILE`: what a recording holds, without replaying it.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Summarize a recording: when, how long, its sessions, its inputs by kind, sender and fate.",
        discussion: """
            Reads the file only (no daemon). Exits 1 when it is not a recording, naming the line at fault.

            Examples:
              flowctl info bug-1234.flowrec
              flowctl info bug-1234.flowrec --json
            """
    )

    @Argument(help: "The recording.")
    var file: String

    @Flag(help: "Print the summary as JSON.")
    var json = false

    func run() throws {
        let recording: Recording
        do {
            recording = try Recording(contentsOf: file)
        } catch {
            printError("flowctl: \(error.message)")
            throw ExitCode(1)
        }
        if let cut = recording.cutLine {
            printError(
                "flowctl: \(file):\(cut): the last line was cut short (the recorder stopped while writing it): left out"
            )
        }
        let summary = RecordingSummary(recording)
        if json {
            try printJSON(summary)
        } else {
            print(
                (["file:      \(TerminalText.safe(file))"] + summary.lines.map(TerminalText.safe)).joined(
                    separator: "\n"
                )
            )
        }
    }
}
