import Testing
import ZeroMQ

@Suite struct RouterDealerTests {
    @Test(arguments: Transport.allCases)
    func multipartMessagesTravelWithTheRoutingID(transport: Transport) throws {
        let context = try Context()
        let router = try Socket(.router, context: context)
        let endpoint = try router.bindFresh(transport)
        let dealer = try Socket(.dealer, context: context)
        try dealer.setOption(.routingID, Array("stepper-1".utf8))
        try dealer.connect(endpoint)

        try dealer.send(Message(strings: ["FLOWBUS/1", "STEP", ""]))
        let request = try router.expectMessage()
        #expect(request.strings == ["stepper-1", "FLOWBUS/1", "STEP", ""])

        try router.send(Message([request[0], Array("ACK".utf8), [0, 1, 2, 255]]))
        #expect(try dealer.expectMessage().frames == [Array("ACK".utf8), [0, 1, 2, 255]])
    }

    @Test(arguments: Transport.allCases)
    func aRestartedPeerTakesOverItsRoutingIDWithHandover(transport: Transport) throws {
        let context = try Context()
        let router = try Socket(.router, context: context)
        try router.setOption(.routerHandover, true)
        let endpoint = try router.bindFresh(transport)

        let original = try Socket(.dealer, context: context)
        try original.setOption(.routingID, Array("presenter".utf8))
        try original.connect(endpoint)
        try original.send(Message(strings: ["from the original"]))
        #expect(try router.expectMessage().strings == ["presenter", "from the original"])

        let replacement = try Socket(.dealer, context: context)
        try replacement.setOption(.routingID, Array("presenter".utf8))
        try replacement.connect(endpoint)
        try replacement.send(Message(strings: ["from the replacement"]))
        #expect(try router.expectMessage().strings == ["presenter", "from the replacement"])

        try router.send(Message(strings: ["presenter", "to whoever holds the id"]))
        #expect(try replacement.expectMessage().strings == ["to whoever holds the id"])
        #expect(try original.receive(within: .milliseconds(100)) == nil)
    }

    @Test func sendingToAnUnknownPeerWithMandatoryIsAnErrorAndTheRouterGoesOn() throws {
        let context = try Context()
        let router = try Socket(.router, context: context)
        try router.setOption(.routerMandatory, true)
        let endpoint = try router.bindFresh(.tcp)

        let error = #expect(throws: ZeroMQError.self) {
            try router.send(Message(strings: ["nobody", "hello"]))
        }
        #expect(error?.code == .hostUnreachable)

        let dealer = try Socket(.dealer, context: context)
        try dealer.setOption(.routingID, Array("somebody".utf8))
        try dealer.connect(endpoint)
        try dealer.send(Message(strings: ["hi"]))
        #expect(try router.expectMessage().strings == ["somebody", "hi"])
        try router.send(Message(strings: ["somebody", "still working"]))
        #expect(try dealer.expectMessage().strings == ["still working"])
    }

    @Test(arguments: Transport.allCases)
    func aPeerSendingMoreThanMaxMessageSizeIsDisconnectedAndOthersAreServed(transport: Transport) throws {
        let context = try Context()
        let router = try Socket(.router, context: context)
        try router.setOption(.maxMessageSize, 1024)
        let monitor = try router.monitor()
        let endpoint = try router.bindFresh(transport)

        let hostile = try Socket(.dealer, context: context)
        try hostile.setOption(.routingID, Array("hostile".utf8))
        try hostile.connect(endpoint)
        #expect(try monitor.wait(for: .accepted, within: .seconds(5)) != nil)
        try hostile.send(Message([[UInt8](repeating: 7, count: 100_000)]))
        #expect(try monitor.wait(for: .disconnected, within: .seconds(5)) != nil)

        let friendly = try Socket(.dealer, context: context)
        try friendly.setOption(.routingID, Array("friendly".utf8))
        try friendly.connect(endpoint)
        try friendly.send(Message([[UInt8](repeating: 1, count: 1000)]))
        let received = try router.expectMessage()
        #expect(received.strings[0] == "friendly")
        #expect(received[1].count == 1000)
        #expect(try router.receive(dontWait: true) == nil)
    }
}
