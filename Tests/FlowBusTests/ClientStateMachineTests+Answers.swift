import FlowBusTesting
import FlowCore
import FlowWire
import Testing

@testable import FlowBus

extension ClientStateMachineTests {
    static let query = FlowWire.Message.query(Query(what: "steps"))

    @Test func anAnswerNotGivenInTimeFailsTimedOut() throws {
        var client = try ClientMachineHarness()
        _ = try client.register()
        let reply = PendingReply<JSONValue>()
        #expect(
            client.request(.ask(Self.query, session: "s1", reply: reply, timeout: .milliseconds(500)))
                == [client.sending(Self.query, id: 2)]
        )
        #expect(client.machine.nextDeadline(now: client.clock.now) == client.clock.now.advanced(by: .milliseconds(500)))
        #expect(client.advance(by: .milliseconds(499)) == [])
        let late = FlowBusError(.timedOut, "flowd did not answer in time")
        #expect(client.advance(by: .milliseconds(1)) == [.answer(reply, .failure(late))])
        // A reply that comes later finds nobody waiting.
        #expect(client.receive(.reply(Reply(result: .null)), correlation: 2) == [])
    }

    @Test func anAnswerGivenInTimeIsDeliveredAndDoesNotTimeOut() throws {
        var client = try ClientMachineHarness()
        _ = try client.register()
        let reply = PendingReply<JSONValue>()
        _ = client.request(.ask(Self.query, session: "s1", reply: reply, timeout: .milliseconds(500)))
        #expect(client.receive(.reply(Reply(result: .int(7))), correlation: 2) == [.answer(reply, .success(.int(7)))])
        #expect(client.advance(by: .milliseconds(500)) == [])
    }

    @Test func anAnswerWaitingForTheRegistrationTimesOutToo() throws {
        var client = try ClientMachineHarness()
        let reply = PendingReply<JSONValue>()
        #expect(client.request(.ask(Self.query, session: "s1", reply: reply, timeout: .seconds(1))) == [])
        let late = FlowBusError(.timedOut, "flowd did not answer in time")
        #expect(client.advance(by: .seconds(1)) == [.answer(reply, .failure(late))])
    }
}
