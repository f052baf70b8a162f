/// Where flowd serves its metrics and health checks: an IP address and a TCP port (`--metrics 127.0.0.1:9862`).
public struct MetricsAddress: Sendable, Hashable, CustomStringConvertible {
    /// The IP address to bind: IPv4 (`127.0.0.1`, `0.0.0.0` for every interface) or IPv6 (`::1`, `::`).
    public let host: String
    /// The TCP port; 0 lets the system choose (flowd logs the one it got).
    public let port: UInt16

    /// Whether ``host`` is an IPv6 address.
    public var isIPv6: Bool { host.contains(":") }

    /// An address from its parts, as read.
    /// - Parameters:
    ///   - host: an IP address, as ``host`` has it.
    ///   - port: the TCP port.
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Whether ``host`` is a loopback address (`127.0.0.0/8`, `::1`): only this machine reaches it.
    public var isLoopback: Bool {
        host.hasPrefix("127.") || host == "::1" || host == "0:0:0:0:0:0:0:1"
    }

    /// `HOST:PORT`, IPv6 hosts in brackets.
    public var description: String {
        isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
