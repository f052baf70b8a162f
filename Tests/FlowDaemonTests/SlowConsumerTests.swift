import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// Peers that never read, at a real flowd: 40 subscribers to everything and 10 inspectors asking queries as fast as
/// they may, while a stepper and a presenter go on. flowd's memory stays bounded, the readers' replies are dropped
/// and counted, and the normal presenter gets every batch.
@Suite(.serialized) struct SlowConsumerTests {
    @Test func peersThatNeverReadCannotMakeFlowdGrowAndNormalPeersKeepEveryBatch() throws {
        let setup = try TickerSetup()
        let (control, events) = (setup.control, setup.events)
        let daemon = try DaemonProcess(setup.arguments)
        _ = try daemon.readyEndpoints()
        let context = try Context()

        let stepper = try setup.peer("kiosk/ticker", context: context)
        try stepper.hello(.stepper, name: "ticker")
        let presenter = try setup.peer("kiosk/main", context: context)
        try presenter.subscribe("cmd/kiosk/main")
        try presenter.hello(.presenter, name: "main")
        let before = daemon.residentBytes

        // 40 subscribers to everything (commands and the inspection stream), which never read.
        var idle: [Socket] = []
        for _ in 0..<40 {
            let subscriber = try Socket(.subscriber, context: context)
            try subscriber.setOption(.receiveHighWaterMark, 1)
            try subscriber.subscribe("")
            try subscriber.connect(events)
            idle.append(subscriber)
        }
        // 10 inspectors that ask and never read the answers.
        let codec = WireCodec()
        var askers: [Socket] = []
        for index in 0..<10 {
            let dealer = try Socket(.dealer, context: context)
            try dealer.setOption(.routingID, Array("asker-\(index)".utf8))
            try dealer.setOption(.receiveHighWaterMark, 1)
            try dealer.connect(control)
            let hello = Hello(role: .inspector, id: "asker-\(index)", name: "asker-\(index)", session: nil)
            try dealer.send(frames: codec.encode(Envelope(header: Header(id: 0, sentAt: 0), message: .hello(hello))))
            askers.append(dealer)
        }

        // The journey: 3000 steps, one in flight, while the askers ask.
        var commandSequences: [UInt64] = []
        var peak = before
        var queryID: UInt64 = 0
        for number in 1...3_000 {
            for dealer in askers {
                for _ in 0..<20 {
                    queryID += 1
                    let query = Envelope(header: Header(id: queryID, sentAt: 0), message: .query(Query(what: "stats")))
                    _ = try? dealer.send(frames: codec.encode(query), dontWait: true)
                }
            }
            let fate = try stepper.emit(Step("tick", ["n": .int(number)]), sequence: UInt64(number))
            #expect(fate.accepted)
            let batch = try presenter.expectPublished { message in
                if case .commands(let batch) = message { batch } else { nil }
            }
            commandSequences.append(batch.sequence)
            if number % 500 == 0 {
                peak = max(peak, daemon.residentBytes)
            }
        }
        // Every batch, in order, none missing.
        #expect(commandSequences == Array(commandSequences.first!...commandSequences.first! + 2_999))
        let stats = try stepper.stats()
        let bounds = stats["boundsHit"]?.objectValue ?? [:]
        #expect((bounds["replyQueue"]?.intValue ?? 0) > 0)
        print(
            "slow consumers: flowd resident \(before >> 20) MiB before, \(peak >> 20) MiB at most; queries sent \(queryID); bounds hit \(bounds)"
        )
        #expect(peak - before < 256 << 20, "flowd grew by \((peak - before) >> 20) MiB")
        // An asker whose replies are still dropped 5 s after the first is forgotten: asking on, they leave the
        // registrations.
        let forgotten = try waitUntil(within: .seconds(20)) {
            for dealer in askers {
                queryID += 1
                let query = Envelope(header: Header(id: queryID, sentAt: 0), message: .query(Query(what: "stats")))
                _ = try? dealer.send(frames: codec.encode(query), dontWait: true)
            }
            try stepper.send(.query(Query(what: "registrations")))
            let registered = try stepper.expect { message in
                if case .reply(let reply) = message { reply.result.arrayValue } else { nil }
            }
            return !registered.contains { $0.objectValue?["id"]?.stringValue?.hasPrefix("asker-") == true }
        }
        #expect(forgotten, "the askers are still registered")
        idle.removeAll()
        askers.removeAll()
        #expect(daemon.signal(SIGTERM) == 0)
    }
    /// The specification's promise to a peer that reads late: at least 1000 replies wait for it. An inspector that
    /// reads nothing (a receive queue of one) asks 1000 queries; once flowd has answered them all, it reads every
    /// reply, and none was dropped.
    @Test func aPeerThatReadsLateGetsTheThousandRepliesItIsPromised() throws {
        let setup = try TickerSetup()
        let daemon = try DaemonProcess(setup.arguments)
        _ = try daemon.readyEndpoints()
        let context = try Context()
        let late = try TestPeer(
            "late",
            session: "kiosk",
            context: context,
            control: setup.control,
            events: setup.events
        )
        try late.dealer.setOption(.receiveHighWaterMark, 1)
        try late.hello(.inspector, name: "late")
        let watcher = try setup.peer("kiosk/watcher", context: context)
        try watcher.hello(.inspector, name: "watcher")
        let asked = 1_000
        for _ in 0..<asked {
            try late.send(.query(Query(what: "registrations")), session: nil)
        }
        // The late peer's queries flowd has taken (the watcher's own are counted too, this one included).
        var watcherQueries = 0
        func answered() throws -> Int {
            watcherQueries += 1
            return (try watcher.stats()["messagesIn"]?.objectValue?["QUERY"]?.intValue ?? 0) - watcherQueries
        }
        // Every query answered before the late peer reads anything.
        let deadline = ContinuousClock.now + .seconds(20)
        while try answered() < asked, ContinuousClock.now < deadline {}
        #expect(try answered() >= asked)
        // Its replies, in the order asked (heartbeats flowd sends it meanwhile are not counted).
        var replies: [UInt64] = []
        while replies.count < asked, let message = try late.dealer.receive(within: .seconds(2)) {
            if let envelope = try? late.codec.decode(message.frames), case .reply = envelope.message,
                let correlation = envelope.header.correlation
            {
                replies.append(correlation)
            }
        }
        #expect(replies == (2...UInt64(asked + 1)).map { $0 })
        let bounds = try watcher.stats()["boundsHit"]?.objectValue ?? [:]
        #expect(bounds["replyQueue"] == nil, "\(bounds)")
        #expect(daemon.signal(SIGTERM) == 0)
    }
}
