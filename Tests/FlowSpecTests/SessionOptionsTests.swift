import FlowCore
import FlowSpec
import Testing

/// What a flow file says of the session as a whole: the root flow may keep its stepper after its root is dismissed
/// (RxFlow's `allowStepWhenDismissed` on the coordinated flow), and `none` is the none step, reserved.
@Suite struct SessionOptionsTests {
    private func yaml(allowStepWhenDismissed: Bool?) -> String {
        let option = allowStepWhenDismissed.map { ", allowStepWhenDismissed: \($0)" } ?? ""
        return """
            version: 1
            session: { root: App, stepper: { named: app }\(option) }
            steps:
              close: {}
              ping: {}
            flows:
              App:
                root: { stack: app }
                on:
                  close:
                    - dismiss: root
                  ping: []
            """
    }

    /// The app's `ping` after its root was dismissed: taken when the session allows it, dropped otherwise.
    private func pingAfterClosing(_ allow: Bool?) throws -> StepFate? {
        let spec = try specification(yaml(allowStepWhenDismissed: allow))
        var engine = FlowEngine()
        _ = try spec.startSession("s", in: &engine)
        _ = engine.receive(Step("close"), from: .stepper("app"), session: "s")
        let ping = engine.receive(Step("ping"), from: .stepper("app"), session: "s")
        return ping.effects.fate(of: ping.token)
    }

    @Test func theRootFlowMayKeepItsStepperAfterItsRootIsDismissed() throws {
        #expect(try specification(yaml(allowStepWhenDismissed: true)).session.allowStepWhenDismissed)
        #expect(try pingAfterClosing(true)?.isAccepted == true)
        #expect(try pingAfterClosing(nil)?.isAccepted == false)
        #expect(try pingAfterClosing(false)?.isAccepted == false)
    }

    @Test func noneIsReservedAndNeverNavigated() throws {
        let declaring = yaml(allowStepWhenDismissed: nil).replacingOccurrences(
            of: "  ping: {}",
            with: "  ping: {}\n  none: {}"
        )
        #expect(problems(declaring).contains { $0.message.contains("'none' is reserved") })
        let spec = try specification(yaml(allowStepWhenDismissed: nil))
        var engine = FlowEngine()
        _ = try spec.startSession("s", in: &engine)
        let none = engine.receive(Step.none, from: .stepper("app"), session: "s")
        #expect(none.effects.fate(of: none.token) == .dropped(.noneStep))
    }
}
