extension MetricsAddress {
    /// `HOST:PORT` read: `127.0.0.1:9862`, `localhost:9862`, `[::1]:9862`, `0.0.0.0:9862`, or `:9862` (every
    /// interface).
    /// - Parameters:
    ///   - text: the address as written.
    ///   - setting: the setting it was given for, as errors name it.
    /// - Throws: ``ConfigurationError`` saying what is wrong with it.
    public init(parsing text: String, for setting: DaemonSetting = .metrics) throws {
        let example = setting == .metrics ? "9862" : "5862"
        let form =
            "\(setting) takes HOST:PORT, such as 127.0.0.1:\(example) or [::1]:\(example), not '\(text.prefix(64))'"
        guard let colon = text.lastIndex(of: ":") else { throw ConfigurationError(form) }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard let port = UInt16(portText) else {
            throw ConfigurationError("\(form): the port must be a number from 0 to 65535")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        switch host {
        case "", "*": host = "0.0.0.0"
        case "localhost": host = "127.0.0.1"
        default: break
        }
        guard Self.isIPv4(host) || (host.contains(":") && host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." })
        else {
            throw ConfigurationError("\(form): the host must be an IP address (or localhost)")
        }
        self.init(host: host, port: port)
    }

    private static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }
}
