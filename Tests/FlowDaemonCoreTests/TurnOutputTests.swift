import Testing

@testable import FlowDaemonCore

/// What a turn sends, on its own: messages in order, those describing no state apart, ids that only increase.
@Suite struct TurnOutputTests {
    @Test func messageIdsIncreaseAndNeverGoBack() {
        var turn = TurnOutput(firstMessageID: 1000)
        let id = turn.nextMessageID()
        #expect(id == 1001)
        turn.numberFrom(5000)
        let idAgain = turn.nextMessageID()
        #expect(idAgain == 5001)
        turn.numberFrom(10)
        let id3 = turn.nextMessageID()
        #expect(id3 == 5002)
    }

    @Test func aTurnBeginsEmptyAndKeepsImmediateMessagesApart() {
        var turn = TurnOutput(firstMessageID: 0)
        let answer = Outgoing.toPeer("a", [[1]])
        let heartbeat = Outgoing.toPeer("a", [[2]])
        turn.append(answer, immediate: false)
        turn.append(heartbeat, immediate: true)
        turn.impostor = .unknownID
        #expect(turn.messages == [answer, heartbeat])
        #expect(turn.immediate == [heartbeat])
        turn.begin()
        #expect(turn.messages.isEmpty && turn.impostor == nil)
        #expect(turn.immediate == [heartbeat], "kept until the turn is finished")
    }
}
