import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// A peer that subscribes to topics without end, at a real flowd, over tcp and over ipc: libzmq keeps every
/// subscription of a connection with no bound of its own, so flowd cuts the subscriber (it sent more than a
/// subscriber sends, has more waiting, or holds the most topics nobody publishes), its memory stays bounded (the
/// same flood took an unguarded flowd past 1 GiB), and a presenter connected meanwhile keeps every batch. Tried with
/// one flooding connection, and with fifty in parallel from one process (before flowd watched its subscribers from a
/// thread of its own, and refused a host cut again and again, fifty over tcp kept its loop inside libzmq for up to a
/// second at a time and took it to 500 MiB).
@Suite(.serialized) struct SubscriptionFloodTests {
    @Test(arguments: zip(["tcp", "ipc", "tcp", "ipc"], [1, 1, 50, 50]))
    func aSubscriberThatSubscribesWithoutEndIsCutAndFlowdStaysBounded(transport: String, connections: Int) throws {
        let setup = try TickerSetup()
        let (control, events) =
            transport == "tcp"
            ? ("tcp://127.0.0.1:*", "tcp://127.0.0.1:*") : (setup.control, setup.events)
        let daemon = try DaemonProcess(
            [
                "--flows", setup.flows, "--control", control, "--events", events, "--ephemeral", "--max-presentables",
                "100000",
            ]
        )
        let endpoints = try daemon.readyEndpoints()
        let context = try Context()
        let stepper = try TestPeer(
            "kiosk/ticker",
            session: "kiosk",
            context: context,
            control: endpoints.control[0],
            events: endpoints.events[0]
        )
        try stepper.hello(.stepper, name: "ticker")
        let presenter = try TestPeer(
            "kiosk/main",
            session: "kiosk",
            context: context,
            control: endpoints.control[0],
            events: endpoints.events[0]
        )
        try presenter.subscribe("cmd/kiosk/main")
        try presenter.hello(.presenter, name: "main")
        #expect(try stepper.emit(Step("tick", ["n": .int(0)]), sequence: 1).accepted)
        _ = try presenter.expectPublished { if case .commands(let batch) = $0 { batch } else { nil } }
        let before = daemon.residentBytes

        // Another process: up to 200 000 subscriptions of 64 random hex digits (libzmq's XSUB sends them all again on
        // each new connection).
        let flooder = try ChildProcess(
            "flowbench",
            ["subscription-flooder", endpoints.events[0], "200000", "\(connections)"]
        )
        defer { flooder.terminate() }
        try flooder.waitForOutput(containing: "ready")
        var peak = before
        var sequences: [UInt64] = []
        var tick = 1
        // Three to eight seconds of flood (the flooder, cut again and again, may not get all its subscriptions out):
        // at least three, and then until flowd has cut the flooder (and, where it should, refused it coming back).
        let banned = transport == "ipc" || connections > 1
        let started = ContinuousClock.now
        let deadline = started + .seconds(8)
        var answered = false
        while ContinuousClock.now < deadline && !(answered && ContinuousClock.now > started + .seconds(3)) {
            tick += 1
            #expect(try stepper.emit(Step("tick", ["n": .int(tick)]), sequence: UInt64(tick)).accepted)
            let batch: CommandsMessage
            do {
                batch = try presenter.expectPublished { if case .commands(let batch) = $0 { batch } else { nil } }
            } catch {
                // Said with what flowd counted, for whoever reads a failure.
                let bounds = (try? stepper.stats()["boundsHit"]) ?? .null
                Issue.record(
                    "tick \(tick), \(sequences.count) batches into the flood: none published; bounds hit \(bounds)"
                )
                throw error
            }
            if tick % 100 == 0 {
                try presenter.send(.heartbeat(Heartbeat()))
                let hit = try stepper.stats()["boundsHit"]?.objectValue ?? [:]
                answered =
                    (hit["subscriberBytes"]?.intValue ?? 0) + (hit["subscriptions"]?.intValue ?? 0) > 0
                    && (!banned || (hit["bannedConnections"]?.intValue ?? 0) > 0)
            }
            sequences.append(batch.sequence)
            peak = max(peak, daemon.residentBytes)
        }
        // Cut for what it sent (or has waiting), or for what it holds, whichever came first; and (over ipc, or for a
        // host cut again and again) refused in the handshake once it comes back, which it does within its reconnect
        // interval: counted by flowd's next tick.
        var bounds: JSONObject = [:]
        var cut = 0
        _ = try waitUntil {
            bounds = try stepper.stats()["boundsHit"]?.objectValue ?? [:]
            cut = (bounds["subscriberBytes"]?.intValue ?? 0) + (bounds["subscriptions"]?.intValue ?? 0)
            return cut > 0 && (!banned || (bounds["bannedConnections"]?.intValue ?? 0) > 0)
        }
        print(
            "subscription flood over \(transport), \(connections) connections: flowd resident \(before >> 20) MiB before, \(peak >> 20) MiB at most; \(tick) ticks meanwhile; bounds hit \(bounds)"
        )
        #expect(cut > 0)
        if banned {
            #expect((bounds["bannedConnections"]?.intValue ?? 0) > 0, "\(bounds)")
        }
        #expect(peak - before < 128 << 20, "flowd grew by \((peak - before) >> 20) MiB")
        // The presenter, subscribed before, got every batch, in order.
        #expect(sequences == Array((sequences.first ?? 1)..<((sequences.first ?? 1) + UInt64(sequences.count))))
        #expect(daemon.signal(SIGTERM) == 0)
    }
}
