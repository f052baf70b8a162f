import Dispatch
import Foundation
import Testing
import ZeroMQ

@Suite struct ContextTests {
    @Test func closingWithUnsentMessagesReturnsPromptly() throws {
        let done = DispatchSemaphore(value: 0)
        let clock = ContinuousClock()
        let start = clock.now
        Thread {
            do {
                let context = try Context()
                let push = try Socket(.push, context: context)
                // No peer ever listens here; the connect still makes a pipe, so messages queue.
                try push.connect("tcp://127.0.0.1:9")
                var queued = 0
                while try push.send(Message([[UInt8](repeating: 0, count: 512)]), dontWait: true) {
                    queued += 1
                }
                #expect(queued > 0)
            } catch {
                Issue.record(error)
            }
            // Socket and context are released here, with everything still queued.
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 10) == .success, "closing hung with queued messages")
        #expect(clock.now - start < .seconds(5))
    }

    @Test func aChosenLingerBoundsTheWaitOnClose() throws {
        let done = DispatchSemaphore(value: 0)
        Thread {
            do {
                let context = try Context()
                let push = try Socket(.push, context: context, linger: .milliseconds(100))
                try push.connect("tcp://127.0.0.1:9")
                try push.send(Message(strings: ["never delivered"]))
            } catch {
                Issue.record(error)
            }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 10) == .success, "closing waited past the linger")
    }

    @Test func shutdownWakesABlockedReceiveWithContextTerminated() throws {
        let context = try Context()
        let outcome = Outcome()
        let started = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            do {
                let pull = try Socket(.pull, context: context)
                _ = try pull.bindFresh(.ipc)
                started.signal()
                _ = try pull.receive()
                outcome.set("received")
            } catch let error as ZeroMQError {
                outcome.set("\(error.code)")
            } catch {
                outcome.set("\(error)")
            }
            done.signal()
        }.start()
        started.wait()
        context.shutdown()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(outcome.value == "\(ZeroMQError.Code.contextTerminated)")
        // New sockets on a shut-down context are refused the same way.
        let error = #expect(throws: ZeroMQError.self) { try Socket(.pair, context: context) }
        #expect(error?.code == .contextTerminated)
    }
}

/// A string set by one thread and read by another.
private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = ""

    func set(_ value: String) {
        lock.withLock { stored = value }
    }

    var value: String {
        lock.withLock { stored }
    }
}
