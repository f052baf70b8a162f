import FlowBus
import FlowBusTesting
import FlowCore
import Foundation
import Testing

/// A flow with a guarded step: `secret` passes only when the guard `parental` allows it, else it becomes `refused`.
private let guardedFlows = """
    version: 1
    session:
      root: Main
      stepper: { named: app }
    steps:
      secret: {}
      refused: {}
    flows:
      Main:
        root: { stack: main }
        adapt:
          secret:
            guard: { name: parental, subject: adult }
            else: refused
        on:
          secret:
            - show: Secret
          refused:
            - show: Refused
    """

@Suite struct GuardClientTests {
    @Test(arguments: [true, false])
    func aGuardsAnswerDecidesTheStep(allowed: Bool) async throws {
        // A generous guard timeout: the answer must not lose a race with a busy test machine.
        let daemon = try Daemon(flows: try flowsFile(guardedFlows), ["--guard-timeout", "10000"])
        let asked = Locked<[GuardClient.Question]>([])
        let parental = try await GuardClient.connect(name: "parental", options: daemon.options()) { question in
            asked.withLock { $0.append(question) }
            return allowed
        }
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: daemon.options())
        #expect(try await app.emit("secret").isAccepted)
        let screen = try await eventuallyValue {
            try await daemon.screen(named: allowed ? "Secret" : "Refused", session: "kiosk")
        }
        #expect(screen.rawValue > 0)
        #expect(asked.value.map(\.subject) == ["adult"])
        #expect(asked.value.first?.session == "kiosk")
        await parental.close()
        await app.close()
    }

    @Test func aGuardThatDoesNotAnswerInTimeRefusesAndOtherSessionsGoOn() async throws {
        let daemon = try Daemon(flows: try flowsFile(guardedFlows), ["--guard-timeout", "300"])
        let parental = try await GuardClient.connect(name: "parental", options: daemon.options()) { _ in
            try? await Task.sleep(for: .seconds(30))
            return true
        }
        let slow = try await StepperClient.connect(session: "slow", name: "app", options: daemon.options())
        let other = try await StepperClient.connect(session: "other", name: "app", options: daemon.options())
        let waiting = Task { try await slow.emit("secret") }
        // While session "slow" waits for its guard, session "other" is served.
        #expect(try await other.emit("refused").isAccepted)
        #expect(try await waiting.value.isAccepted)
        let refused = try await eventuallyValue {
            try await daemon.screen(named: "Refused", session: "slow")
        }
        #expect(refused.rawValue > 0)
        #expect(try await daemon.screen(named: "Secret", session: "slow") == nil)
        await parental.close()
        await slow.close()
        await other.close()
    }
}
