import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// What one authorized key cannot do to another's peers at a real flowd with CURVE, over tcp: take over a
/// registered peer's connection by asking for its routing id, or make flowd stop publishing the inspection stream
/// a granted watcher reads (with refused subscriptions, unsubscriptions or connections that end).
@Suite struct CurveTakeoverTests {
    @Test func aKeyCannotTakeAnotherPeersRoutingIdNorSilenceItsWatchers() throws {
        let server = try CurveKeyPair.generate()
        let (appA, appB, watcher) = try (CurveKeyPair.generate(), CurveKeyPair.generate(), CurveKeyPair.generate())
        let daemon = try DaemonProcess([
            "--flows", demoFlows, "--control", "tcp://127.0.0.1:*", "--events", "tcp://127.0.0.1:*",
            "--ephemeral", "--curve-secret-key=\(server.secretKey.z85)",
            "--authorize=a/app=\(appA.publicKey.z85):a:stepper",
            "--authorize=b/app=\(appB.publicKey.z85):b:stepper",
            "--authorize=watcher=\(watcher.publicKey.z85):b:inspector",
        ])
        let (control, events) = try daemon.readyEndpoints()
        let context = try Context()
        func peer(_ id: String, _ session: String, _ keys: CurveKeyPair) throws -> TestPeer {
            try TestPeer(
                id,
                session: session,
                context: context,
                control: control[0],
                events: events[0],
                curve: (keys, server.publicKey)
            )
        }

        var stepperB = try peer("b/app", "b", appB)
        try stepperB.hello(.stepper, name: "app")
        // A granted watcher of b, on the batched inspection stream.
        let watching = try Socket(.subscriber, context: context)
        try watching.makeCurveClient(keyPair: watcher, serverKey: server.publicKey)
        try watching.subscribe("inb/b/")
        try watching.connect(events[0])
        _ = try watching.receive(within: .seconds(10))  // The HEARTBEAT that says the subscription is in place.

        // Tried: A's key subscribing to b's stream (refused), unsubscribing, and connections ending after a
        // refused subscription, as many times as there are watchers and more.
        var spies: [Socket] = []
        for _ in 0..<3 {
            let spy = try Socket(.extendedSubscriber, context: context)
            spies.append(spy)
            try spy.makeCurveClient(keyPair: appA, serverKey: server.publicKey)
            try spy.connect(events[0])
            try spy.send(frames: [[1] + Array("inb/b/".utf8)])
            try spy.send(frames: [[0] + Array("inb/b/".utf8)])
            try spy.send(frames: [[1] + Array("inb/b/".utf8)])
        }
        _ = try daemon.line(containing: "refused a subscription")
        // Two of them end their connections (libzmq then says their subscriptions ended, with no key).
        spies.removeFirst(2)
        // The watcher still gets b's events.
        #expect(try stepperB.emit(Step("onboardingIsRequired"), sequence: 1).accepted)
        var heard = false
        let deadline = ContinuousClock.now + .seconds(10)
        while !heard, ContinuousClock.now < deadline {
            guard let message = try watching.receive(within: ContinuousClock.now.duration(to: deadline)) else { break }
            if case .events = try? WireCodec().decode(Array(message.frames.dropFirst())).message {
                heard = true
            }
        }
        #expect(heard, "the watcher of b heard no EVENTS after another key's refused subscriptions")

        // Tried: A's key asking for b's stepper's routing id while it is connected (it would take over b's replies,
        // and act as it): the connection is not taken, and b's stepper keeps its own.
        let thief = try peer("b/app", "b", appA)
        try thief.send(.step(StepMessage(step: Step("onboardingIsComplete"), sequence: 2)))
        #expect(try thief.dealer.receive(within: .milliseconds(500)) == nil)
        #expect(try stepperB.emit(Step("onboardingIsComplete"), sequence: 2).accepted)
        // Once b's stepper is gone, A's key may hold the id, but nothing it says under it is taken.
        try stepperB.send(.bye(Bye()))
        // Closed (a DEALER's disconnect leaves its connection open): the new peer below stands in for it.
        stepperB = try peer("b/other", "b", appB)
        var refusal: ErrorReply?
        let until = ContinuousClock.now + .seconds(15)
        while refusal == nil, ContinuousClock.now < until {
            // A new connection each time: libzmq refuses one under a connected id, until that one is gone.
            let holder = try peer("b/app", "b", appA)
            try holder.send(.step(StepMessage(step: Step("onboardingIsComplete"), sequence: 3)))
            if let frames = try holder.dealer.receive(within: .milliseconds(500)),
                case .error(let error) = try? WireCodec().decode(frames.frames).message
            {
                refusal = error
            }
        }
        #expect(refusal?.code == "idNotAllowed")
        #expect(daemon.signal(SIGTERM) == 0)
    }
}
