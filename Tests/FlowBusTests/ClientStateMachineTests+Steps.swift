import FlowBusTesting
import FlowCore
import FlowWire
import Testing

@testable import FlowBus

extension ClientStateMachineTests {
    /// Emits steps named `names` (numbered from 1), returning their fates.
    private func emit(_ names: [String], on client: inout ClientMachineHarness) -> [PendingReply<Fate>] {
        names.map { name in
            let fate = PendingReply<Fate>()
            _ = client.request(.emit(.step(Step(name), presentable: nil), fate: fate))
            return fate
        }
    }

    @Test func stepsEmittedBeforeTheWelcomeAreSentAfterIt() throws {
        var client = try ClientMachineHarness()
        _ = emit(["a", "b"], on: &client)
        let welcome = ClientMachineHarness.welcome()
        #expect(
            try client.register(welcome) == [
                .welcomed(welcome),
                client.sending(ClientMachineHarness.step("a", 1), id: 2),
                client.sending(ClientMachineHarness.step("b", 2), id: 3),
                .started,
            ]
        )
    }

    @Test func stepsNotAcknowledgedAreResentOnceEachInOrderAfterANewWelcome() throws {
        var client = try ClientMachineHarness()
        _ = try client.register()
        let fates = emit(["a", "b", "c"], on: &client)
        let accepted = WireFate(accepted: true, flows: [])
        #expect(
            client.receive(.stepAck(StepAck(sequence: 2, fate: accepted))) == [
                .settleStep(fates[1], .success(Fate(accepted)))
            ]
        )
        _ = client.disconnected()
        // HELLO as message 5, after the three steps (2, 3, 4).
        #expect(client.sent(client.connected()).map(\.id) == [5])
        let welcome = ClientMachineHarness.welcome(lastSequence: 1)
        #expect(
            client.receive(.welcome(welcome), correlation: 5) == [
                .welcomed(welcome),
                .log(.info, "registered again with flowd; resending 2 steps that wait for their fate"),
                client.sending(ClientMachineHarness.step("a", 1), id: 6),
                client.sending(ClientMachineHarness.step("c", 3), id: 7),
            ]
        )
        // Not again before they are overdue (a heartbeat timeout later): only heartbeats go meanwhile.
        #expect(client.sent(client.advance(by: .seconds(1))).map(\.message) == [.heartbeat(Heartbeat())])
    }

    @Test func aSequenceGapReportResendsEveryStepInFlightOnce() throws {
        var client = try ClientMachineHarness()
        _ = try client.register()
        _ = emit(["a", "b", "c"], on: &client)
        let gap = ErrorReply(code: ErrorCode.sequenceGap.rawValue, message: "expected 1")
        #expect(
            client.receive(.error(gap), correlation: 4) == [
                .log(.debug, "flowd waits for earlier steps, sending every step in flight again: expected 1"),
                client.sending(ClientMachineHarness.step("a", 1), id: 5),
                client.sending(ClientMachineHarness.step("b", 2), id: 6),
                client.sending(ClientMachineHarness.step("c", 3), id: 7),
            ]
        )
        // The report for a step sent before the resend finds it sent again already.
        #expect(client.receive(.error(gap), correlation: 3) == [])
    }

    @Test func aStepWaitingTooLongIsSentAgainAfterTheHeartbeatTimeout() throws {
        var client = try ClientMachineHarness()
        _ = try client.register()
        _ = emit(["a"], on: &client)
        for _ in 1...4 {
            _ = client.advance(by: .seconds(1))
            _ = client.receive(.heartbeat(Heartbeat()))
        }
        #expect(client.sent(client.advance(by: .seconds(1))).map(\.message) == [.heartbeat(Heartbeat())])
        _ = client.receive(.heartbeat(Heartbeat()))
        // The overdue look comes every 250 ms (a twentieth of the timeout): the step, sent at 0, is older than 5 s.
        #expect(
            client.sent(client.advance(by: .milliseconds(250))).map(\.message) == [ClientMachineHarness.step("a", 1)]
        )
    }

    @Test func aRefusedStepFailsWithFlowdsReason() throws {
        var client = try ClientMachineHarness()
        _ = try client.register()
        let fates = emit(["nope"], on: &client)
        let refusal = ErrorReply(code: ErrorCode.unknownStep.rawValue, message: "no such step")
        let expected = FlowBusError(.refused, "no such step", daemonCode: ErrorCode.unknownStep.rawValue)
        #expect(client.receive(.error(refusal), correlation: 2) == [.settleStep(fates[0], .failure(expected))])
    }

    @Test func aDaemonThatLostStepsGetsTheWaitingOnesNumberedAnew() throws {
        var client = try ClientMachineHarness()
        _ = try client.register(ClientMachineHarness.welcome(lastSequence: 10))
        _ = emit(["a", "b"], on: &client)
        _ = client.disconnected()
        _ = client.connected()
        let welcome = ClientMachineHarness.welcome(lastSequence: 3)
        let actions = client.receive(.welcome(welcome), correlation: 4)
        #expect(
            client.sent(actions).map(\.message) == [
                ClientMachineHarness.step("a", 4), ClientMachineHarness.step("b", 5),
            ]
        )
    }
}
