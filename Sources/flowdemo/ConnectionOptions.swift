import ArgumentParser
import FlowBus

/// Where flowd is, shared by every subcommand.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "flowd's control endpoint. Default: its ipc endpoint in the runtime directory.")
    var control: String?

    @Option(help: "flowd's events endpoint. Default: its ipc endpoint in the runtime directory.")
    var events: String?

    @Option(help: "The session.")
    var session = "demo"

    @Option(help: "How long to wait for flowd, in milliseconds.")
    var connectTimeout = 5000

    @Option(help: "The longest wait between two attempts to reconnect to flowd, in milliseconds.")
    var reconnectIntervalMax = 5000

    var clientOptions: ClientOptions {
        let defaults = Endpoints.defaultIPC()
        return ClientOptions(
            endpoints: Endpoints(control: control ?? defaults.control, events: events ?? defaults.events),
            connectTimeout: .milliseconds(connectTimeout),
            reconnectIntervalMax: .milliseconds(reconnectIntervalMax)
        )
    }
}
