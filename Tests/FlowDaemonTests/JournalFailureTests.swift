import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// A journal that cannot be written: the real flowd, whose files may not grow past a limit (as on a full disk),
/// waits for room for its retry window — HELLOs refused with `storeUnavailable` meanwhile, heartbeats going on, no
/// step acknowledged — then stops (74) rather than acknowledge a step it could not write, and a flowd started again
/// on the same state has every step that was acknowledged, and none that was not.
@Suite struct JournalFailureTests {
    @Test func aFullDiskStopsFlowdAfterItsRetryWindowAndEveryAcknowledgedStepIsKeptAndNoOtherOne() throws {
        let setup = try TickerSetup()
        let arguments = setup.arguments

        // 160 KiB: the new database and some dozens of steps' write-ahead log fit, not many more.
        let limited = try DaemonProcess(arguments + ["--store-retry-window", "3s"], fileSizeLimit: 160 * 1024)
        _ = try limited.line(containing: "restored 0 sessions", within: .seconds(20))
        let context = try Context()
        let ticker = try setup.peer("kiosk/ticker", context: context)
        try ticker.hello(.stepper, name: "ticker")
        var acknowledged: [Int] = []
        var unanswered: Int?
        for number in 1...5_000 {
            try ticker.send(.step(StepMessage(step: Step("tick", ["n": .int(number)]), sequence: UInt64(number))))
            let fate = try answer(to: UInt64(number), from: ticker, while: limited)
            guard let fate else {
                unanswered = number
                break
            }
            #expect(fate.accepted)
            acknowledged.append(number)
        }
        #expect(unanswered != nil, "the limit was never reached")
        // The disk is full, and flowd says so to a newcomer, at once.
        if limited.process.isRunning {
            let newcomer = try setup.peer("kiosk/other", context: context)
            try newcomer.send(.hello(Hello(role: .stepper, id: newcomer.id, name: "other", session: "kiosk")))
            let refusal = try newcomer.expect(within: .seconds(2)) { message -> ErrorReply? in
                if case .error(let error) = message { error } else { nil }
            }
            #expect(refusal.code == "storeUnavailable", "\(refusal)")
        }
        #expect(limited.exitStatus(within: .seconds(10)) == 74)
        // The step that could not be written was never acknowledged.
        if let unanswered {
            #expect(try answer(to: UInt64(unanswered), from: ticker, while: limited) == nil)
        }
        #expect(limited.standardError.contains("cannot write the journal"))
        #expect(acknowledged.count > 3)

        // Again, with room: what was acknowledged is there, once, and the step that was not is not.
        let again = try DaemonProcess(arguments)
        _ = try again.line(containing: "restored 1 session ", within: .seconds(20))
        let probe = try setup.peer("probe", context: context)
        try probe.hello(.inspector, name: "probe")
        try probe.send(.query(Query(what: "tree", arguments: ["session": "kiosk"])))
        let tree = try probe.expect { message in
            if case .reply(let reply) = message { reply.result.objectValue } else { nil }
        }
        let ticks = (tree["screens"]?.arrayValue ?? []).compactMap(\.objectValue)
            .filter { $0["name"] == "Tick" }
            .compactMap { $0["parameters"]?.objectValue?["n"]?.intValue }
        #expect(ticks.sorted() == acknowledged)
        #expect(again.signal(SIGTERM) == 0)
    }

    /// The fate flowd acknowledged for `sequence`, or `nil` once flowd has said that its store does not answer (or
    /// has exited) without acknowledging it.
    private func answer(to sequence: UInt64, from peer: TestPeer, while daemon: DaemonProcess) throws -> WireFate? {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            guard let frames = try peer.dealer.receive(within: .milliseconds(50)) else {
                if !daemon.process.isRunning || daemon.standardError.contains("the store does not answer (") {
                    return nil
                }
                continue
            }
            if case .stepAck(let ack) = try? peer.codec.decode(frames.frames).message, ack.sequence == sequence {
                return ack.fate
            }
        }
        throw TestFailure("step \(sequence): neither acknowledged nor flowd stopped within 20 s")
    }
}
