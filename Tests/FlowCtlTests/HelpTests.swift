import FlowBusTesting
import Testing

/// flowctl's help puts each command's own options before the connection options every command shares.
@Suite struct HelpTests {
    static let connection: Set<String> = [
        "--control", "--events", "--connect-timeout", "--curve-secret-key", "--curve-server-key", "--id",
    ]

    @Test(arguments: [
        "watch", "tree", "list", "emit", "deeplink", "explain", "stats", "record", "replay", "ping", "query", "end",
        "data",
    ])
    func ownOptionsComeBeforeTheConnectionOptions(command: String) throws {
        let help = try run(try builtProduct("flowctl"), [command, "--help"])
        #expect(help.status == 0)
        let options = help.output.split(separator: "\n").drop { $0 != "OPTIONS:" }.compactMap { line -> String? in
            guard line.hasPrefix("  --") || line.hasPrefix("  -h") else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }
        let firstConnection = try #require(options.firstIndex(of: "--control"), "\(command): \(options)")
        let own = options.indices.filter {
            !Self.connection.contains(options[$0]) && !["--version", "-h,"].contains(options[$0])
        }
        #expect(own.allSatisfy { $0 < firstConnection }, "\(command): \(options)")
    }
}
