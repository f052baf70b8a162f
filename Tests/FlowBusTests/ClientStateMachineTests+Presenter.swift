import FlowBusTesting
import FlowCore
import FlowWire
import Testing

@testable import FlowBus

extension ClientStateMachineTests {
    static let snapshotRequest = FlowWire.Message.snapshotRequest(SnapshotRequest())

    static func batch(_ sequence: UInt64, epoch: String = "e1") -> FlowWire.Message {
        .commands(
            CommandsMessage(
                presenter: "app",
                sequence: sequence,
                epoch: epoch,
                commands: [],
                flow: FlowID(1),
                step: nil
            )
        )
    }

    static func snapshot(_ sequence: UInt64, epoch: String = "e1") -> FlowWire.Message {
        .snapshot(SnapshotMessage(presenter: "app", sequence: sequence, epoch: epoch, commands: []))
    }

    static func navigation(_ sequence: UInt64) -> ClientAction {
        .present(
            .navigate(Navigation(sequence: sequence, commands: [], flow: FlowID(1), step: nil, screens: ScreenTree()))
        )
    }

    static func rebuild(_ reason: RebuildReason, _ sequence: UInt64) -> ClientAction {
        .present(.rebuild(Rebuild(reason: reason, commands: [], sequence: sequence, screens: ScreenTree())))
    }

    /// A presenter registered, its subscription confirmed and its first snapshot (at `sequence` 5) applied.
    private func builtPresenter() throws -> ClientMachineHarness {
        var client = try ClientMachineHarness(role: .presenter)
        _ = try client.register()
        _ = client.publish(.heartbeat(Heartbeat()))
        _ = client.receive(Self.snapshot(5))
        return client
    }

    @Test func aPresenterAsksForItsSnapshotOnlyOnceTheSubscriptionIsConfirmed() throws {
        var client = try ClientMachineHarness(role: .presenter)
        let welcome = ClientMachineHarness.welcome()
        #expect(try client.register(welcome) == [.welcomed(welcome), .started])
        #expect(client.publish(.heartbeat(Heartbeat())) == [client.sending(Self.snapshotRequest, id: 2)])
        #expect(client.receive(Self.snapshot(5)) == [Self.rebuild(.start, 5)])
    }

    @Test func batchesPublishedBeforeTheFirstSnapshotWaitForIt() throws {
        var client = try ClientMachineHarness(role: .presenter)
        _ = try client.register()
        #expect(client.publish(Self.batch(7)) == [])
        #expect(client.publish(Self.batch(6)) == [])
        #expect(client.publish(Self.batch(4)) == [])
        _ = client.publish(.heartbeat(Heartbeat()))
        #expect(client.receive(Self.snapshot(5)) == [Self.rebuild(.start, 5), Self.navigation(6), Self.navigation(7)])
    }

    @Test func aBatchAfterTheNextOneIsAGapThatAsksForASnapshot() throws {
        var client = try builtPresenter()
        #expect(client.publish(Self.batch(6)) == [Self.navigation(6)])
        #expect(
            client.publish(Self.batch(8)) == [
                .log(.info, "navigation 8 arrived after 6 (gap); resyncing from a snapshot"),
                client.sending(Self.snapshotRequest, id: 3),
            ]
        )
        // Batches wait for the snapshot, then those after it are applied in order.
        #expect(client.publish(Self.batch(9)) == [])
        #expect(client.receive(Self.snapshot(7)) == [Self.rebuild(.gap, 7), Self.navigation(8), Self.navigation(9)])
        #expect(client.publish(Self.batch(10)) == [Self.navigation(10)])
    }

    @Test func aBatchOfANewEpochMeansFlowdRestartedAndAsksForASnapshot() throws {
        var client = try builtPresenter()
        #expect(
            client.publish(Self.batch(1, epoch: "e2")) == [
                .log(.info, "navigation 1 arrived after 5 (daemonRestarted); resyncing from a snapshot"),
                client.sending(Self.snapshotRequest, id: 3),
            ]
        )
        #expect(client.receive(Self.snapshot(1, epoch: "e2")) == [Self.rebuild(.daemonRestarted, 1)])
    }

    @Test func aBatchAlreadyInTheSnapshotIsSkipped() throws {
        var client = try builtPresenter()
        #expect(client.publish(Self.batch(5)) == [])
        #expect(client.publish(Self.batch(6)) == [Self.navigation(6)])
    }

    @Test func anUnansweredSnapshotRequestIsSentAgainAfterTheHeartbeatTimeout() throws {
        var client = try ClientMachineHarness(role: .presenter)
        _ = try client.register()
        _ = client.publish(.heartbeat(Heartbeat()))
        for _ in 1...5 {
            _ = client.advance(by: .seconds(1))
            _ = client.receive(.heartbeat(Heartbeat()))
        }
        #expect(client.sent(client.advance(by: .milliseconds(250))).map(\.message) == [Self.snapshotRequest])
    }

    @Test func aReconnectedSubscriptionResyncsOnceConfirmed() throws {
        var client = try builtPresenter()
        #expect(
            client.machine.subscription(.disconnected(endpoint: "tcp://127.0.0.1:7002"), now: client.clock.now) == []
        )
        #expect(client.machine.subscription(.connected, now: client.clock.now) == [])
        #expect(client.publish(.heartbeat(Heartbeat())) == [client.sending(Self.snapshotRequest, id: 3)])
        #expect(client.receive(Self.snapshot(6)) == [Self.rebuild(.reconnected, 6)])
    }
}
