import ArgumentParser
import FlowDaemon
import Foundation

/// `flowd config`: the configuration flowd would run with, and where each value comes from.
struct Config: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the configuration in effect and where each value comes from.",
        discussion: """
            Reads the settings as `flowd run` would — flags, then FLOWD_* environment variables, then the \
            configuration file (--config), then the defaults — checks them, and prints them as YAML, each line \
            commented with its source and whether SIGHUP applies a change to it. The CURVE secret key is never \
            printed. Exits 1 with every problem when the settings cannot be used.

            Every setting is a key of the file (maxSessions), a flag (--max-sessions) and an environment variable \
            (FLOWD_MAX_SESSIONS); authorized keys in the environment are entries like --authorize's, separated by \
            spaces.

            Examples:
              flowd config --config /etc/flowbus/flowd.yaml
              FLOWD_MAX_SESSIONS=500 flowd config
            """
    )

    @OptionGroup var options: DaemonOptions

    func run() async throws {
        let sources = options.sources
        do {
            let settings = try await sources.read()
            let configuration = try DaemonConfiguration(settings, environment: sources.environment)
            print(EffectiveConfiguration(configuration: configuration, settings: settings).yaml, terminator: "")
        } catch {
            FileHandle.standardError.write(Data("flowd: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}
