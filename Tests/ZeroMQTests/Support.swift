import Foundation
import Testing
import ZeroMQ

/// The transports every socket test runs over: ipc (a unique socket file) and tcp on loopback (a free port).
enum Transport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case ipc
    case tcp

    var testDescription: String { rawValue }

    /// A fresh endpoint to bind: a new ipc path, or loopback with a port the system picks.
    func freshBindEndpoint() -> String {
        switch self {
        case .ipc:
            let name = "fb-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(12))"
            return "ipc://\(FileManager.default.temporaryDirectory.path)/\(name)"
        case .tcp:
            return "tcp://127.0.0.1:*"
        }
    }
}

extension Socket {
    /// Binds to a fresh endpoint of `transport` and returns the endpoint peers connect to.
    func bindFresh(_ transport: Transport) throws -> String {
        try bind(transport.freshBindEndpoint())
        return try lastEndpoint
    }

    /// Receives a message or fails the test after `timeout`: the way tests wait for a condition.
    func expectMessage(
        within timeout: Duration = .seconds(5),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Message {
        try #require(
            try receive(within: timeout),
            "no message arrived within \(timeout)",
            sourceLocation: sourceLocation
        )
    }
}
