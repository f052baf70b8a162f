import FlowBusTesting
import Foundation
import ZeroMQ

/// A directory of its own for a flowd on the ticker flows (every `tick` pushes a screen): the flows file, ipc
/// endpoints and a state directory in it, removed with the value.
final class TickerSetup {
    let scratch = ScratchDirectory("tk")
    var directory: String { scratch.path }
    var control: String { "ipc://\(directory)/control" }
    var events: String { "ipc://\(directory)/events" }
    var state: String { directory + "/state" }
    let flows: String

    init() throws {
        flows = scratch.path + "/ticker.yaml"
        try tickerFlows.write(toFile: flows, atomically: true, encoding: .utf8)
    }

    /// flowd's arguments: the flows, the endpoints and this setup's state directory. The ticker's stack grows by a
    /// screen a tick, and these tests tick thousands of times: the session may hold that many presentables.
    var arguments: [String] {
        [
            "--flows", flows, "--control", control, "--events", events, "--state-dir", state,
            "--max-presentables", "100000",
        ]
    }

    /// A peer of session `kiosk` on this flowd.
    func peer(_ id: String, context: Context) throws -> TestPeer {
        try TestPeer(id, session: "kiosk", context: context, control: control, events: events)
    }
}
