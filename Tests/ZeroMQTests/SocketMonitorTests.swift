import Foundation
import Testing
import ZeroMQ

@Suite struct SocketMonitorTests {
    @Test(arguments: Transport.allCases)
    func monitorsReportConnectAcceptAndDisconnect(transport: Transport) throws {
        let context = try Context()
        let server = try Socket(.router, context: context)
        let serverEvents = try server.monitor()
        let endpoint = try server.bindFresh(transport)
        #expect(try serverEvents.wait(for: .listening, within: .seconds(5))?.endpoint == endpoint)

        var client: Socket? = try Socket(.dealer, context: context)
        let clientEvents = try client!.monitor()
        try client!.connect(endpoint)
        #expect(try clientEvents.wait(for: .connected, within: .seconds(5))?.endpoint == endpoint)
        #expect(try serverEvents.wait(for: .accepted, within: .seconds(5)) != nil)
        #expect(try clientEvents.wait(for: .handshakeSucceeded, within: .seconds(5)) != nil)

        // The client goes away: the server sees the disconnect.
        client = nil
        #expect(try serverEvents.wait(for: .disconnected, within: .seconds(5)) != nil)
        #expect(try clientEvents.wait(for: .monitorStopped, within: .seconds(5)) != nil)
    }

    @Test func aClientSeesTheServerGoAwayAndRetry() throws {
        let context = try Context()
        var server: Socket? = try Socket(.router, context: context)
        let endpoint = try server!.bindFresh(.tcp)
        let client = try Socket(.dealer, context: context)
        let events = try client.monitor()
        try client.connect(endpoint)
        #expect(try events.wait(for: .connected, within: .seconds(5)) != nil)

        server = nil
        #expect(try events.wait(for: .disconnected, within: .seconds(5)) != nil)
        #expect(try events.wait(for: .connectRetried, within: .seconds(5)) != nil)
    }

    @Test func monitorEventsCanBePolledWithMessages() throws {
        let context = try Context()
        let server = try Socket(.pull, context: context)
        let events = try server.monitor()
        var poller = Poller()
        let eventsIndex = poller.register(events.socket)
        _ = try server.bindFresh(.ipc)
        let ready = try poller.poll(timeout: .seconds(5))
        #expect(ready.map(\.index) == [eventsIndex])
        #expect(try events.next()?.kind == .listening)
        #expect(try events.next() == nil)
    }

    // libzmq 4.3 keeps a monitor's internal socket until the context ends unless the monitor is stopped before
    // the socket closes: a client that reconnects for days would run out of file descriptors.
    @Test func closingMonitoredSocketsReleasesTheirFileDescriptors() throws {
        let context = try Context()
        let router = try Socket(.router, context: context)
        let endpoint = try router.bindFresh(.ipc)
        func openDescriptors() -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        }
        let before = openDescriptors()
        for _ in 0..<100 {
            let dealer = try Socket(.dealer, context: context)
            let monitor = try dealer.monitor()
            try dealer.connect(endpoint)
            _ = try monitor.next(within: .milliseconds(1))
        }
        // Closing is finished by libzmq's reaper thread: wait for it, with a deadline.
        let deadline = ContinuousClock.now + .seconds(5)
        while openDescriptors() > before + 10 && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(openDescriptors() <= before + 10)
    }
}
