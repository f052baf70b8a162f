import FlowCore
import FlowSpec
import Testing

/// `sends:` says what each screen and stepper process sends: a step from one of them that is not listed is dropped
/// (`notDeclaredForSender`) before any flow sees it; a sender not listed sends anything.
@Suite struct SendsTests {
    private static func file(sends: String) -> String {
        """
        version: 1
        session:
          root: Main
          stepper: { named: app }
        steps:
          start: {}
          movieIsPicked: { withId: int }
          settingsAreRequired: {}
        sends:
        \(sends)
        flows:
          Main:
            root: { stack: main }
            on:
              start:
                - show: List
              movieIsPicked:
                - show: Detail
              settingsAreRequired: []
        """
    }

    private let declared = Self.file(
        sends: """
              screens:
                List: [movieIsPicked, settingsAreRequired]
                Detail: []
              steppers:
                app: [start]
            """
    )

    @Test func whatEachSenderSendsIsRead() throws {
        let spec = try specification(declared)
        #expect(spec.steps(sentByScreen: "List") == ["movieIsPicked", "settingsAreRequired"])
        #expect(spec.steps(sentByScreen: "Detail") == [])
        #expect(spec.steps(sentByStepper: "app") == ["start"])
        #expect(spec.steps(sentByScreen: "Elsewhere") == nil)
        #expect(spec.steps(sentByStepper: "auth") == nil)
    }

    /// Tried: a listed step from its screen and its stepper (passes), one not listed (dropped, said how), a screen
    /// that sends nothing, a sender not listed (passes), the none step (left to the engine), a screen not on screen.
    @Test func aStepItsSenderDoesNotListIsDroppedSayingWhatItSends() throws {
        let spec = try specification(declared)
        let screen = StepSource.presentable(PresentableID(7))
        #expect(spec.senderProblem(of: Step("movieIsPicked", ["withId": 1]), from: screen, screen: "List") == nil)
        #expect(spec.senderProblem(of: Step("start"), from: .stepper("app"), screen: nil) == nil)
        let fromList = try #require(spec.senderProblem(of: Step("start"), from: screen, screen: "List"))
        #expect(fromList.code == "notDeclaredForSender")
        #expect(
            fromList.description
                == "the flow file says screen List sends only movieIsPicked, settingsAreRequired, not start"
        )
        #expect(fromList.remedy.contains("`sends:`"))
        let fromDetail = try #require(
            spec.senderProblem(of: Step("settingsAreRequired"), from: screen, screen: "Detail")
        )
        #expect(fromDetail.description == "the flow file says screen Detail sends no step, not settingsAreRequired")
        #expect(
            spec.senderProblem(of: Step("settingsAreRequired"), from: .stepper("app"), screen: nil)?.code
                == "notDeclaredForSender"
        )
        #expect(spec.senderProblem(of: Step("settingsAreRequired"), from: .stepper("auth"), screen: nil) == nil)
        #expect(spec.senderProblem(of: Step.none, from: .stepper("app"), screen: nil) == nil)
        #expect(spec.senderProblem(of: Step("start"), from: screen, screen: nil) == nil)
    }

    @Test func aFileWithoutSendsLetsEverySenderSendAnything() throws {
        let spec = try specification(Self.file(sends: "  screens: {}"))
        #expect(spec.sends.isEmpty)
        #expect(spec.senderProblem(of: Step("start"), from: .presentable(PresentableID(1)), screen: "List") == nil)
    }

    /// Tried: a screen no flow shows (with a suggestion), a stepper no flow binds, a step not declared, a list
    /// that is not one, an unknown key under `sends:`, `sends:` that is not a mapping, the none step, a step listed
    /// twice, a sender's name that is not a name.
    @Test func badSendsAreReportedWithTheirLines() {
        let cases: [(String, Diagnostic.Kind, String, Int)] = [
            (
                "  screens:\n    Lsit: [start]", .unknownSender, "no flow shows a screen 'Lsit' (did you mean 'List'?)",
                11
            ),
            ("  steppers:\n    auth: [start]", .unknownSender, "no flow listens to a stepper 'auth'", 11),
            (
                "  screens:\n    List: [strat]", .unknownStep,
                "step 'strat' in what screen 'List' sends is not declared", 11
            ),
            ("  screens:\n    List: start", .wrongType, "what screen 'List' sends must be a list", 11),
            ("  views:\n    List: [start]", .unknownKey, "unknown key 'views' in sends", 10),
            ("  [List]", .wrongType, "sends must be a mapping", 10),
            ("  screens:\n    List: [none]", .unknownStep, "'none' is not listed in what screen 'List' sends", 11),
            (
                "  screens:\n    List: [start, start]", .duplicateName,
                "start is listed twice in what screen 'List' sends", 11
            ),
            ("  screens:\n    \"a b\": [start]", .wrongType, "a screen name must be a name", 11),
        ]
        for (sends, kind, message, line) in cases {
            let found = problems(Self.file(sends: sends))
            #expect(found.count == 1, "\(sends): \(found)")
            #expect(found.first?.kind == kind, "\(sends)")
            #expect(found.first?.message.contains(message) == true, "\(sends): \(found.first?.message ?? "")")
            #expect(found.first?.location.line == line, "\(sends)")
        }
    }
}
