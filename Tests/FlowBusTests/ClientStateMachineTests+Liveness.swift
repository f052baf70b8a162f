import FlowBusTesting
import FlowCore
import FlowWire
import Testing

@testable import FlowBus

extension ClientStateMachineTests {
    @Test func anIdleClientSendsAHeartbeatOnceTheIntervalPasses() throws {
        var client = try ClientMachineHarness()
        _ = try client.register()
        #expect(client.advance(by: .milliseconds(999)) == [])
        #expect(client.advance(by: .milliseconds(1)) == [client.sending(.heartbeat(Heartbeat()), id: 2)])
        #expect(client.advance(by: .milliseconds(999)) == [])
        #expect(client.advance(by: .milliseconds(1)) == [client.sending(.heartbeat(Heartbeat()), id: 3)])
    }

    @Test func noHeartbeatIsSentWhileStepsFlow() throws {
        var client = try ClientMachineHarness()
        _ = try client.register()
        for index in 1...8 {
            #expect(client.advance(by: .milliseconds(500)) == [])
            let fate = PendingReply<Fate>()
            let sent = client.sent(client.request(.emit(.step(Step("tick"), presentable: nil), fate: fate)))
            #expect(sent.map(\.message) == [ClientMachineHarness.step("tick", UInt64(index))])
            let accepted = WireFate(accepted: true, flows: [])
            #expect(
                client.receive(.stepAck(StepAck(sequence: UInt64(index), fate: accepted)))
                    == [.settleStep(fate, .success(Fate(accepted)))]
            )
        }
    }

    @Test func aSilentDaemonIsReplacedAfterTheHeartbeatTimeout() throws {
        var client = try ClientMachineHarness()
        _ = try client.register()
        // Five seconds of silence is not yet too long (the client heartbeats meanwhile)...
        #expect(client.sent(client.advance(by: .seconds(5))).map(\.message) == [.heartbeat(Heartbeat())])
        // ...a moment more is.
        #expect(
            client.advance(by: .milliseconds(1)) == [
                .log(.info, "flowd has been silent for \(Duration.milliseconds(5000)); opening new connections"),
                .reconnect(to: ClientMachineHarness.first),
            ]
        )
        // Unregistered now: nothing more until the new connection is made.
        #expect(client.advance(by: .seconds(1)) == [])
    }

    @Test func aMessageFromTheDaemonPostponesTheSilenceTimeout() throws {
        var client = try ClientMachineHarness()
        _ = try client.register()
        _ = client.advance(by: .seconds(4))
        #expect(client.receive(.heartbeat(Heartbeat())) == [])
        let later = client.advance(by: .seconds(4))
        #expect(!later.contains(.reconnect(to: ClientMachineHarness.first)))
        #expect(client.sent(later).map(\.message) == [.heartbeat(Heartbeat())])
    }

    @Test func theNextDeadlineIsTheEarliestOfHeartbeatAndSilence() throws {
        var client = try ClientMachineHarness()
        _ = try client.register()
        let start = client.clock.now
        #expect(client.machine.nextDeadline(now: start) == start.advanced(by: .seconds(1)))
        _ = client.advance(by: .seconds(1))
        // The heartbeat just sent: the next one is due a second later, before the silence timeout (5 s after WELCOME).
        #expect(client.machine.nextDeadline(now: client.clock.now) == start.advanced(by: .seconds(2)))
    }
}
