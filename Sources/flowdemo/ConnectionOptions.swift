import ArgumentParser
import FlowBus

/// Where flowd is, shared by every subcommand.
struct ConnectionOptions: ParsableArguments {
    @Option(
        help:
            "flowd's control endpoint; for a fleet, its instances' endpoints separated by commas (tried in order). Default: its ipc endpoint in the runtime directory."
    )
    var control: String?

    @Option(
        help:
            "flowd's events endpoint; for a fleet, one per control endpoint, in the same order. Default: its ipc endpoint in the runtime directory."
    )
    var events: String?

    @Option(help: "The session.")
    var session = "demo"

    @Option(help: "How long to wait for flowd, in milliseconds.")
    var connectTimeout = 5000

    @Option(help: "The longest wait between two attempts to reconnect to flowd, in milliseconds.")
    var reconnectIntervalMax = 5000

    func validate() throws {
        if let control, let events, Endpoints.list(control: control, events: events) == nil {
            throw ValidationError(
                "a fleet's endpoints pair up: give as many --control as --events endpoints, separated by commas"
            )
        }
    }

    var clientOptions: ClientOptions {
        let defaults = Endpoints.defaultIPC()
        let list =
            Endpoints.list(control: control ?? defaults.control, events: events ?? defaults.events) ?? [defaults]
        return ClientOptions(
            endpoints: list[0],
            alternateEndpoints: Array(list.dropFirst()),
            connectTimeout: .milliseconds(connectTimeout),
            reconnectIntervalMax: .milliseconds(reconnectIntervalMax)
        )
    }
}
