import ArgumentParser
import FlowDaemon
import FlowSpec
import Foundation

/// `flowd config`: the configuration flowd would run with, and where each value comes from.
struct Config: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the configuration in effect and where each value comes from.",
        discussion: """
            Reads the settings as `flowd run` would — flags, then FLOWD_* environment variables, then the \
            configuration file (--config, else $FLOWD_CONFIG), then the defaults — checks them and the flows file, \
            and prints them as YAML, each line commented with its source and whether SIGHUP applies a change to \
            it. The CURVE secret key is never printed. Exits 1 naming the problems when the settings or the flows \
            cannot be used (an endpoint in use, or a metrics address that is not this machine's, shows only when \
            flowd binds it). --drop-sessions-with-missing-flows is an action of `flowd run`, not a setting.

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
            for warning in settings.warnings {
                FileHandle.standardError.write(Data("flowd: warning: \(warning)\n".utf8))
            }
            print(EffectiveConfiguration(configuration: configuration, settings: settings).yaml, terminator: "")
            do {
                _ = try FlowSpecification.load(contentsOf: configuration.flowsFile)
            } catch {
                for diagnostic in error.diagnostics {
                    FileHandle.standardError.write(Data("\(diagnostic)\n".utf8))
                }
                FileHandle.standardError.write(
                    Data("flowd: the flows file cannot be used: \(error.message)\n".utf8)
                )
                throw ExitCode.failure
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            FileHandle.standardError.write(Data("flowd: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}
