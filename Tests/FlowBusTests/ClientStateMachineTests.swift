import FlowBusTesting
import FlowCore
import FlowWire
import Testing

@testable import FlowBus

/// The client's protocol rules, driven in process with a manual clock: registration, failover and REDIRECT, the
/// connect timeout. (Heartbeats, steps, answers and a presenter's screens are in the files beside this one.)
struct ClientStateMachineTests {
    static let hello = FlowWire.Message.hello(
        Hello(role: .stepper, id: "s1/app", name: "app", session: "s1", capabilities: ["resend", "resync"])
    )

    @Test func connectingSaysHelloWithTheClientsIdentityAndCapabilities() throws {
        var client = try ClientMachineHarness()
        #expect(client.connected() == [client.sending(Self.hello, id: 1)])
    }

    @Test func theFirstWelcomeStartsTheClient() throws {
        var client = try ClientMachineHarness()
        let welcome = ClientMachineHarness.welcome()
        #expect(try client.register(welcome) == [.welcomed(welcome), .started])
    }

    @Test func anUnansweredHelloIsSentAgainAfterARetryIntervalThatDoubles() throws {
        var client = try ClientMachineHarness()
        _ = client.connected()
        // The first retry waits twice the reconnect interval (200 ms), the next twice that.
        #expect(client.advance(by: .milliseconds(199)) == [])
        #expect(client.advance(by: .milliseconds(1)) == [client.sending(Self.hello, id: 2)])
        #expect(client.advance(by: .milliseconds(399)) == [])
        #expect(client.advance(by: .milliseconds(1)) == [client.sending(Self.hello, id: 3)])
    }

    @Test func aWelcomeAnsweringAnEarlierHelloIsIgnored() throws {
        var client = try ClientMachineHarness()
        _ = client.connected()
        _ = client.advance(by: .milliseconds(200))
        #expect(client.receive(.welcome(ClientMachineHarness.welcome()), correlation: 1) == [])
        let welcome = ClientMachineHarness.welcome()
        #expect(client.receive(.welcome(welcome), correlation: 2) == [.welcomed(welcome), .started])
    }

    @Test func fourUnansweredHellosOpenANewConnection() throws {
        var client = try ClientMachineHarness()
        _ = client.connected()
        // Retries after 200, 400 and 800 ms; the fourth wait (1600 ms) ends with new connections.
        #expect(client.sent(client.advance(by: .milliseconds(200))).count == 1)
        #expect(client.sent(client.advance(by: .milliseconds(400))).count == 1)
        #expect(client.sent(client.advance(by: .milliseconds(800))).count == 1)
        #expect(client.advance(by: .milliseconds(1599)) == [])
        #expect(
            client.advance(by: .milliseconds(1)) == [
                .log(.info, "flowd did not answer 4 HELLOs; opening new connections"),
                .reconnect(to: ClientMachineHarness.first),
            ]
        )
    }

    @Test func theConnectTimeoutFailsStartupWithTheHandshakesReason() throws {
        var client = try ClientMachineHarness()
        let failure = HandshakeFailure(kind: .authentication, status: 400)
        #expect(client.machine.control(.handshakeFailed(failure), now: client.clock.now) == [])
        #expect(client.advance(by: .milliseconds(4999)) == [])
        let expected = FlowBusError(
            .unreachable,
            "flowd did not answer at tcp://127.0.0.1:7001 within \(Duration.seconds(5)); "
                + "flowd refused the connection in the handshake (status 400): it holds as many connections as it may, or it requires CURVE"
        )
        #expect(client.advance(by: .milliseconds(1)) == [.startupFailed(expected), .stop])
        #expect(client.advance(by: .seconds(10)) == [])
    }

    @Test func theConnectTimeoutFailsStartupWithTheStoresProblem() throws {
        var client = try ClientMachineHarness()
        _ = client.connected()
        let refusal = ErrorReply(code: ErrorCode.storeUnavailable.rawValue, message: "the store does not answer")
        #expect(
            client.receive(.error(refusal), correlation: 1) == [
                .log(.info, "flowd cannot register this client now: the store does not answer")
            ]
        )
        let expected = FlowBusError(
            .refused,
            "flowd at tcp://127.0.0.1:7001 could not register this client within \(Duration.seconds(5)): the store does not answer",
            daemonCode: ErrorCode.storeUnavailable.rawValue
        )
        #expect(client.advance(by: .seconds(5)) == [.startupFailed(expected), .stop])
    }

    @Test func aRefusedHelloFailsStartupAtOnce() throws {
        var client = try ClientMachineHarness()
        _ = client.connected()
        let refusal = ErrorReply(code: "unauthorized", message: "not for you")
        let expected = FlowBusError(.refused, "not for you", daemonCode: "unauthorized")
        #expect(client.receive(.error(refusal), correlation: 1) == [.startupFailed(expected), .stop])
    }

    @Test func anUnregisteredClientTriesTheNextCandidateAfterTheFailoverDelay() throws {
        var client = try ClientMachineHarness(alternates: [ClientMachineHarness.second])
        // The delay is five reconnect intervals, at least 500 ms.
        #expect(client.advance(by: .milliseconds(499)) == [])
        #expect(
            client.advance(by: .milliseconds(1)) == [
                .log(.info, "flowd did not answer; trying the instance at tcp://127.0.0.1:7101"),
                .reconnect(to: ClientMachineHarness.second),
            ]
        )
        #expect(client.advance(by: .milliseconds(499)) == [])
        #expect(
            client.advance(by: .milliseconds(1)) == [
                .log(.info, "flowd did not answer; trying the instance at tcp://127.0.0.1:7001"),
                .reconnect(to: ClientMachineHarness.first),
            ]
        )
    }

    @Test func aSingleInstanceIsNeverFailedOver() throws {
        var client = try ClientMachineHarness()
        #expect(client.advance(by: .milliseconds(4999)) == [])
        #expect(client.machine.nextDeadline(now: client.clock.now) == client.clock.now.advanced(by: .milliseconds(1)))
    }

    @Test func aRedirectReplacesTheConnectionWithTheNamedInstanceOnTheSameTransport() throws {
        var client = try ClientMachineHarness()
        _ = client.connected()
        let redirect = Redirect(
            session: "s1",
            instance: "b",
            control: ["ipc:///tmp/b/control", "tcp://10.0.0.2:7000"],
            events: ["ipc:///tmp/b/events", "tcp://10.0.0.2:7001"]
        )
        let target = Endpoints(control: "tcp://10.0.0.2:7000", events: "tcp://10.0.0.2:7001")
        #expect(
            client.receive(.redirect(redirect), correlation: 1) == [
                .log(.info, "session s1 is served by instance b: connecting to tcp://10.0.0.2:7000"),
                .reconnect(to: target),
            ]
        )
        // The instance named does not answer either: back to the one that sent the client there.
        #expect(client.advance(by: .milliseconds(499)) == [])
        #expect(
            client.advance(by: .milliseconds(1)) == [
                .log(.info, "flowd did not answer; trying the instance at tcp://127.0.0.1:7001"),
                .reconnect(to: ClientMachineHarness.first),
            ]
        )
    }

    @Test func aRedirectAnsweringAnEarlierHelloIsIgnored() throws {
        var client = try ClientMachineHarness()
        _ = client.connected()
        _ = client.advance(by: .milliseconds(200))
        let redirect = Redirect(session: "s1", instance: "b", control: ["tcp://10.0.0.2:7000"], events: ["tcp://x:1"])
        #expect(client.receive(.redirect(redirect), correlation: 1) == [])
    }

    /// A registered client with step 1 in flight, closing: it waits for the step's fate.
    private func closingWithAStepInFlight() throws -> (ClientMachineHarness, PendingReply<Fate>, PendingReply<Void>) {
        var client = try ClientMachineHarness()
        _ = try client.register()
        let fate = PendingReply<Fate>()
        _ = client.request(.emit(.step(Step("a"), presentable: nil), fate: fate))
        let done = PendingReply<Void>()
        #expect(client.request(.close(done: done)) == [])
        return (client, fate, done)
    }

    @Test func closingSaysByeAndReleasesEverythingThatWaits() throws {
        // The step in flight is given its wait for a fate; none comes.
        let (closing, fate, done) = try closingWithAStepInFlight()
        var client = closing
        #expect(!client.advance(by: .milliseconds(1_900)).contains(.stop))
        #expect(client.advance(by: .milliseconds(100)).contains(.stop))
        let closed = FlowBusError(.closed, "the client is closed")
        // BYE after the heartbeat that went while the client waited (message 3).
        #expect(
            client.machine.finish(queued: [], now: client.clock.now) == [
                client.sending(.bye(Bye(reason: "closed")), id: 4),
                .settleStep(fate, .failure(closed)),
                .endStreams,
                .closed(done),
            ]
        )
    }

    @Test func closingWaitsForTheFateOfAStepInFlightThenStops() throws {
        let (closing, fate, _) = try closingWithAStepInFlight()
        var client = closing
        let accepted = WireFate(accepted: true, flows: [])
        #expect(
            client.receive(.stepAck(StepAck(sequence: 1, fate: accepted))) == [
                .settleStep(fate, .success(Fate(accepted))), .stop,
            ]
        )
        // Stopped once: time passing asks for nothing more.
        #expect(!client.advance(by: .seconds(3)).contains(.stop))
    }

    @Test func closingWithNothingInFlightOrFlowdAwayStopsAtOnce() throws {
        var idle = try ClientMachineHarness()
        _ = try idle.register()
        #expect(idle.request(.close(done: nil)) == [.stop])
        var away = try ClientMachineHarness()
        _ = try away.register()
        _ = away.request(.emit(.step(Step("a"), presentable: nil), fate: PendingReply<Fate>()))
        _ = away.disconnected()
        #expect(away.request(.close(done: nil)) == [.stop])
    }
}
