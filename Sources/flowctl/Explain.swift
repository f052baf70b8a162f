import ArgumentParser
import FlowBus
import FlowInspector
import FlowWire
import Foundation

/// `flowctl explain [SESSION]`: the last dropped steps, and why.
struct Explain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the last steps a session dropped, exactly why, and what would have made them pass.",
        discussion: """
            flowd remembers the last 100 dropped steps of each session. A step is dropped when its screen is not \
            visible (notVisible) or was dismissed (dismissed), when no flow is bound to its stepper \
            (unboundStepper), when its flow ended (flowEnded), when adapt turned it away (adaptedAway), and for a \
            few other reasons, each explained.

            Examples:
              flowctl explain kiosk-7
              flowctl explain --last 1 --json | jq -r '.[0].remedy'
            """
    )

    @Argument(help: "The session (default: flowd's only session).")
    var session: String?

    @Option(help: "How many of the last dropped steps to show.")
    var last = 10

    @Flag(help: "A JSON array of the dropped steps, oldest first.")
    var json = false

    @OptionGroup var bus: BusOptions

    func validate() throws {
        guard last > 0 else {
            throw ValidationError("--last must be positive, not \(last)")
        }
    }

    func run() async throws {
        let inspector = try await bus.inspector(session: session)
        let session = try await bus.session(session, inspector)
        let drops = try await bus.query(inspector, "drops", session: session, arguments: ["limit": .int(last)])
        let tree = try? SessionTree(try await bus.query(inspector, "tree", session: session))
        await inspector.close()
        if json {
            try printJSON(drops)
            return
        }
        let entries = drops.arrayValue ?? []
        guard !entries.isEmpty else {
            print("No step was dropped in session \(session) (flowd keeps the last 100).")
            return
        }
        var names = WatchNames()
        if let tree {
            names.learn(from: tree)
        }
        let formatter = WatchFormatter(colored: false)
        print(
            "The last \(entries.count) dropped step\(entries.count == 1 ? "" : "s") of session \(session), oldest first:"
        )
        for entry in entries {
            let fields = entry.objectValue ?? [:]
            let item = WatchedItem(
                kind: "stepFate",
                session: session,
                sentAt: Int64(fields["at"]?.intValue ?? 0),
                fields: fields
            )
            print("")
            print(formatter.dropSummary(item, names: names))
            print("  why:  \(fields["explanation"]?.stringValue ?? fields["reason"]?.stringValue ?? "?")")
            if let remedy = fields["remedy"]?.stringValue {
                print("  fix:  \(remedy)")
            }
        }
    }
}
