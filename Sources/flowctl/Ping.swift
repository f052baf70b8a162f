import ArgumentParser
import FlowBus

/// `flowctl ping`: is flowd there, and how fast does it answer?
struct Ping: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the round trip to flowd and print its version.",
        discussion: """
            Exits 0 when flowd answers, 69 when it does not within --connect-timeout.

            Examples:
              flowctl ping
              flowctl ping --control tcp://10.0.0.7:5860 --count 5
            """
    )

    @Option(help: "How many round trips to time.")
    var count = 3

    @OptionGroup var bus: BusOptions

    func validate() throws {
        guard count > 0 else {
            throw ValidationError("--count must be positive, not \(count)")
        }
    }

    func run() async throws {
        let clock = ContinuousClock()
        let started = clock.now
        let inspector = try await bus.inspector()
        let connected = clock.now - started
        var times: [Duration] = []
        for _ in 0..<count {
            let sent = clock.now
            _ = try await bus.query(inspector, "sessions", arguments: ["limit": 1])
            times.append(clock.now - sent)
        }
        await inspector.close()
        print("flowd \(inspector.daemonVersion) at \(bus.clientOptions.endpoints.control)")
        print(
            "connected in \(milliseconds(connected)) ms; round trips: "
                + times.map { milliseconds($0) }.joined(separator: " ") + " ms"
        )
    }
}
