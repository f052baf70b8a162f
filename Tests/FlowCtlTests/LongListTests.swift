import FlowBus
import FlowBusTesting
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// A session list longer than one reply holds: flowd answers page by page, and `flowctl list` and `ping` still work.
@Suite struct LongListTests {
    @Test func flowctlListsTwentyFiveHundredSessionsPageByPage() throws {
        let directory = uniqueDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let endpoints = ["--control", "ipc://\(directory)/control", "--events", "ipc://\(directory)/events"]
        let daemon = try DaemonProcess(
            ["--flows", demoFlows, "--ephemeral", "--sessions-per-peer-per-minute", "100000"] + endpoints
        )
        _ = try daemon.readyEndpoints()
        // One connection creates 2 500 sessions (its HELLOs, 500 in flight).
        let context = try Context()
        let dealer = try Socket(.dealer, context: context)
        try dealer.setOption(.routingID, Array("creator".utf8))
        try dealer.connect("ipc://\(directory)/control")
        let codec = WireCodec()
        var sent = 0
        var welcomed = 0
        while welcomed < 2_500 {
            while sent < 2_500 && sent - welcomed < 500 {
                sent += 1
                let hello = Hello(role: .stepper, id: "creator", name: "creator", session: "s-\(sent)")
                _ = try dealer.send(
                    frames: codec.encode(Envelope(header: Header(id: UInt64(sent), sentAt: 0), message: .hello(hello)))
                )
            }
            let reply = try #require(try dealer.receive(within: .seconds(10)))
            if case .welcome = try codec.decode(reply.frames).message {
                welcomed += 1
            }
        }
        let listed = try run(try builtProduct("flowctl"), ["list", "--json"] + endpoints)
        #expect(listed.status == 0, "\(listed.errors)")
        let object = try JSONValue(parsing: Array(listed.output.utf8)).objectValue
        let sessions = object?["sessions"]?.arrayValue?.compactMap { $0.objectValue?["session"]?.stringValue } ?? []
        #expect(sessions.count == 2_500)
        #expect(Set(sessions).count == 2_500)
        #expect(try run(try builtProduct("flowctl"), ["ping"] + endpoints).status == 0)
        #expect(daemon.signal(SIGTERM) == 0)
    }
}
