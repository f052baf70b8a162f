import FlowBusTesting
import Testing
import ZeroMQ

@Suite struct PublishSubscribeTests {
    @Test(arguments: Transport.allCases)
    func subscriberReceivesOnlyTopicsMatchingItsPrefixes(transport: Transport) throws {
        let context = try Context()
        let publisher = try Socket(.publisher, context: context)
        let endpoint = try publisher.bindFresh(transport)
        let subscriber = try Socket(.subscriber, context: context)
        try subscriber.subscribe("session/a/")
        try subscriber.subscribe("probe")
        try subscriber.connect(endpoint)

        // PUB drops for late joiners: publish a probe until the subscription has reached the publisher.
        let joined = try waitUntil(within: .seconds(5)) {
            try publisher.send(Message(strings: ["probe"]))
            return try subscriber.receive(within: .milliseconds(20)) != nil
        }
        #expect(joined)
        try subscriber.unsubscribe("probe")
        while try subscriber.receive(dontWait: true) != nil {}

        try publisher.send(Message(strings: ["session/b/one", "ignored"]))
        try publisher.send(Message(strings: ["session/a/one", "first"]))
        try publisher.send(Message(strings: ["session/ab", "ignored"]))
        try publisher.send(Message(strings: ["session/a/two", "second"]))

        #expect(try subscriber.expectMessage().strings == ["session/a/one", "first"])
        #expect(try subscriber.expectMessage().strings == ["session/a/two", "second"])
        #expect(try subscriber.receive(within: .milliseconds(50)) == nil)
    }

    @Test(arguments: Transport.allCases)
    func extendedPublisherSeesSubscriptionsAndUnsubscriptions(transport: Transport) throws {
        let context = try Context()
        let publisher = try Socket(.extendedPublisher, context: context)
        try publisher.setOption(.extendedPublisherVerboser, true)
        let endpoint = try publisher.bindFresh(transport)

        let first = try Socket(.subscriber, context: context)
        try first.connect(endpoint)
        try first.subscribe("events/")
        #expect(try publisher.expectMessage().frames == [[1] + Array("events/".utf8)])

        // With VERBOSER a second subscriber to the same topic is reported too.
        let second = try Socket(.subscriber, context: context)
        try second.connect(endpoint)
        try second.subscribe("events/")
        #expect(try publisher.expectMessage().frames == [[1] + Array("events/".utf8)])

        // VERBOSER passes every unsubscription on too, not only the last one.
        try first.unsubscribe("events/")
        #expect(try publisher.expectMessage().frames == [[0] + Array("events/".utf8)])
        try second.unsubscribe("events/")
        #expect(try publisher.expectMessage().frames == [[0] + Array("events/".utf8)])

        // Published messages reach the subscriber that is still subscribed.
        let third = try Socket(.subscriber, context: context)
        try third.connect(endpoint)
        try third.subscribe("events/")
        _ = try publisher.expectMessage()
        try publisher.send(Message(strings: ["events/x", "payload"]))
        #expect(try third.expectMessage().strings == ["events/x", "payload"])
    }

    @Test(arguments: Transport.allCases)
    func welcomeMessageReachesEachNewSubscriber(transport: Transport) throws {
        let context = try Context()
        let publisher = try Socket(.extendedPublisher, context: context)
        try publisher.setOption(.extendedPublisherWelcomeMessage, Array("welcome".utf8))
        try publisher.setOption(.extendedPublisherVerboser, true)
        let endpoint = try publisher.bindFresh(transport)

        var subscribers: [Socket] = []
        for _ in 0..<2 {
            let subscriber = try Socket(.subscriber, context: context)
            try subscriber.subscribe("welcome")
            try subscriber.connect(endpoint)
            subscribers.append(subscriber)
            // libzmq attaches the new subscriber (and sends the welcome) when the XPUB is next used.
            #expect(try publisher.expectMessage().frames == [[1] + Array("welcome".utf8)])
            #expect(try subscriber.expectMessage().strings == ["welcome"])
        }
        // Earlier subscribers are not welcomed again.
        #expect(try subscribers[0].receive(within: .milliseconds(50)) == nil)
    }
}
