import Glibc
import Testing
import ZeroMQ

@Suite struct PollerTests {
    @Test func pollReturnsNothingWhenTheTimeoutPassesWithoutTraffic() throws {
        let context = try Context()
        let pull = try Socket(.pull, context: context)
        _ = try pull.bindFresh(.tcp)
        var poller = Poller()
        poller.register(pull)

        let clock = ContinuousClock()
        let start = clock.now
        let ready = try poller.poll(timeout: .milliseconds(60))
        #expect(ready.isEmpty)
        // The poll waited (about) its timeout rather than returning at once.
        #expect(clock.now - start >= .milliseconds(50))
        #expect(try poller.poll(timeout: .zero).isEmpty)
    }

    @Test(arguments: Transport.allCases)
    func pollReportsWhichOfSeveralSocketsIsReadable(transport: Transport) throws {
        let context = try Context()
        let first = try Socket(.pull, context: context)
        let second = try Socket(.pull, context: context)
        let secondEndpoint = try second.bindFresh(transport)
        _ = try first.bindFresh(transport)
        let push = try Socket(.push, context: context)
        try push.connect(secondEndpoint)

        var poller = Poller()
        let firstIndex = poller.register(first)
        let secondIndex = poller.register(second)
        #expect(poller.count == 2)
        try push.send(Message(strings: ["to second"]))

        let ready = try poller.poll(timeout: .seconds(5))
        #expect(ready.map(\.index) == [secondIndex])
        #expect(ready.first?.events == .readable)
        #expect(try poller[secondIndex]?.receive(dontWait: true)?.strings == ["to second"])
        #expect(try poller[firstIndex]?.receive(dontWait: true) == nil)
    }

    @Test func pollWaitsOnAFileDescriptorTogetherWithSockets() throws {
        let context = try Context()
        let pull = try Socket(.pull, context: context)
        _ = try pull.bindFresh(.ipc)
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        var poller = Poller()
        poller.register(pull)
        let pipeIndex = poller.register(fileDescriptor: ends[0])
        #expect(poller[pipeIndex] == nil)
        #expect(try poller.poll(timeout: .zero).isEmpty)

        var byte: UInt8 = 1
        #expect(write(ends[1], &byte, 1) == 1)
        let ready = try poller.poll(timeout: .seconds(5))
        #expect(ready.map(\.index) == [pipeIndex])
        #expect(ready.first?.events == .readable)
    }

    @Test func pollReportsWritableSockets() throws {
        let context = try Context()
        let pull = try Socket(.pull, context: context)
        let endpoint = try pull.bindFresh(.tcp)
        let push = try Socket(.push, context: context)
        try push.setOption(.immediate, true)
        try push.connect(endpoint)

        var poller = Poller()
        let index = poller.register(push, for: .writable)
        // IMMEDIATE: writable only once the connection is complete.
        let ready = try poller.poll(timeout: .seconds(5))
        #expect(ready.map(\.index) == [index])
        #expect(ready.first?.events.contains(.writable) == true)
        poller.update(index, for: .readable)
        #expect(try poller.poll(timeout: .zero).isEmpty)
    }

    @Test func receiveTimeoutReturnsNilInsteadOfBlocking() throws {
        let context = try Context()
        let pull = try Socket(.pull, context: context)
        _ = try pull.bindFresh(.ipc)
        try pull.setOption(.receiveTimeout, .milliseconds(30))

        let clock = ContinuousClock()
        let start = clock.now
        #expect(try pull.receive() == nil)
        #expect(clock.now - start >= .milliseconds(25))
        #expect(try pull.receive(within: .milliseconds(10)) == nil)
        #expect(try pull.receive(dontWait: true) == nil)
    }

    @Test func sendWithoutAPeerWouldBlockAndReturnsFalse() throws {
        let context = try Context()
        let push = try Socket(.push, context: context)
        _ = try push.bindFresh(.tcp)
        #expect(try push.send(Message(strings: ["nobody listens"]), dontWait: true) == false)
        try push.setOption(.sendTimeout, .milliseconds(20))
        #expect(try push.send(Message(strings: ["nobody listens"])) == false)
    }
}
