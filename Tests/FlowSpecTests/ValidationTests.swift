import FlowSpec
import Foundation
import Testing

/// Every kind of problem is reported with its line and column, and several at once.
@Suite struct ValidationTests {
    private let valid = """
        version: 1
        session:
          root: Main
        steps:
          go: { withId: int }
        flows:
          Main:
            root: { stack: main }
            on:
              go:
                - show: Detail
                  params: { id: $withId }
        """

    /// The problems of `yaml` as `line:column kind`.
    private func found(_ yaml: String) -> [String] {
        problems(yaml).map { "\($0.location.line):\($0.location.column) \($0.kind.rawValue)" }
    }

    @Test func aValidFileHasNoProblems() throws {
        let spec = try specification(valid)
        #expect(spec.summary == "1 flow, 1 step, 1 screen")
    }

    /// A step a flow ends with need not be handled: it goes to the flow that started the ending one, which may act
    /// on it or not (a newcomer's help flow ending with `helpIsClosed` was refused with "remove it", which would
    /// have broken the `end:`). A step nothing handles and nothing ends with is still refused.
    @Test func aStepAFlowEndsWithNeedNotBeHandled() throws {
        let yaml = """
            version: 1
            session:
              root: Main
            steps:
              helpIsRequired: {}
              helpIsDone: {}
              helpIsClosed: {}
              neverUsed: {}
            flows:
              Main:
                root: { stack: main }
                on:
                  helpIsRequired:
                    - start: Help
                      as: present
              Help:
                root: { stack: help }
                on:
                  helpIsDone:
                    - end: helpIsClosed
            """
        #expect(found(yaml) == ["8:3 unhandledStep"])
        #expect(problems(yaml).first?.message.contains("'neverUsed'") == true)
    }

    /// A misspelt stepper key is one mistake, said once (it was also said as "exactly one of named, one,
    /// composite").
    @Test func aMisspeltStepperKeyIsOneProblem() {
        let yaml = valid.replacingOccurrences(of: "  root: Main", with: "  root: Main\n  stepper: { name: kiosk }")
        let said = problems(yaml)
        #expect(said.count == 1, "\(said.map(\.message))")
        #expect(said.first?.message.contains("did you mean 'named'?") == true)
    }

    @Test func unknownKeysAreReportedWithTheClosestKnownKey() {
        let yaml = valid.replacingOccurrences(of: "    root: { stack: main }", with: "    rot: { stack: main }")
        let diagnostics = problems(yaml)
        #expect(diagnostics.map(\.kind).contains(.unknownKey))
        #expect(diagnostics.first { $0.kind == .unknownKey }?.message.contains("did you mean 'root'?") == true)
        #expect(found(yaml).contains("8:5 unknownKey"))
    }

    @Test func wrongTypesSayWhatWasExpected() {
        // Tried: text for a boolean, a list for a mapping, text for a whole number, a bad parameter type.
        let yaml = """
            version: 1
            session:
              root: Main
            steps:
              go: { withId: integer }
            flows:
              Main:
                root: { stack: main }
                restoreParentOnEnd: maybe
                on:
                  go:
                    - tabs: [ ]
                      selected: first
                    - show: [ Detail ]
            """
        #expect(
            found(yaml) == [
                "5:17 wrongType", "9:25 wrongType", "12:11 invalidAction", "13:21 wrongType", "14:17 wrongType",
            ]
        )
    }

    @Test func missingKeysAndAnUnsupportedVersionAreReported() {
        #expect(found("session: { root: Main }\nflows: {}") == ["1:1 missingKey", "1:18 unknownFlow"])
        let newer = valid.replacingOccurrences(of: "version: 1", with: "version: 2")
        #expect(found(newer) == ["1:10 unsupportedVersion"])
        #expect(problems("").map(\.kind) == [.malformedYAML])
    }

    @Test func duplicateNamesAreReported() {
        let yaml = valid + "\n  Main:\n    root: { stack: again }"
        #expect(found(yaml) == ["7:3 duplicateName"])
        #expect(problems(yaml).first?.message.contains("'Main'") == true)
    }

    @Test func unknownFlowsAndStepsAreReportedWithASuggestion() {
        let yaml = valid.replacingOccurrences(of: "root: Main", with: "root: Mian")
            .replacingOccurrences(of: "    go:\n", with: "    og:\n")
        let diagnostics = problems(yaml)
        // The undeclared step also leaves `$withId` unprovided.
        #expect(found(yaml) == ["3:9 unknownFlow", "5:3 unhandledStep", "10:7 unknownStep", "11:17 missingParameter"])
        #expect(diagnostics[0].message.contains("did you mean 'Main'?"))
        #expect(diagnostics[2].message.contains("did you mean 'go'?"))
    }

    @Test func unreachableFlowsAreReported() {
        let yaml = valid + "\n  Orphan:\n    root: { stack: orphan }\n    on:\n      go: none"
        #expect(found(yaml) == ["13:3 unreachableFlow"])
    }

    @Test func parametersUsedButNeverProvidedAreReported() {
        let yaml = """
            version: 1
            session:
              root: Main
              stepper: { one: go }
            steps:
              go: { withId: int }
              next: { name: string }
            flows:
              Main:
                root: { stack: main }
                on:
                  go:
                    - show: Detail
                      params: { title: $title }
                    - forwardToCurrentFlow: { step: next, params: { name: 3 } }
                  next:
                    - end: { step: go }
            """
        // `$title` is not a parameter of go; the session's one-step `go` lacks withId; `name` is not a string;
        // the `end` step lacks withId.
        #expect(
            found(yaml) == [
                "4:19 missingParameter", "13:17 missingParameter", "15:41 wrongType", "17:24 missingParameter",
            ]
        )
    }

    @Test func actionsThatDoNotFitTheirFlowAreReported() {
        let yaml = """
            version: 1
            session:
              root: Main
            steps:
              go: {}
              back: {}
            flows:
              Main:
                root: { tabs: main }
                on:
                  go:
                    - show: Detail
                      as: push
                    - pop: top
                    - end: back
                    - show: Late
                  back:
                    - show: Side
                      as: master
                      presenter: other
            """
        #expect(
            found(yaml) == [
                "12:17 invalidAction", "14:11 invalidAction", "15:11 invalidAction", "15:11 invalidAction",
                "18:17 invalidAction", "18:17 invalidAction",
            ]
        )
    }

    @Test func malformedYAMLIsAnErrorWithItsPosition() {
        let diagnostics = problems("version: 1\nflows: [\n  a: }\n")
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.kind == .malformedYAML)
        #expect(diagnostics.first?.location.line == 3)
        #expect(problems("- just\n- a list").map(\.kind) == [.wrongType])
        #expect(problems("version: 1\nsession: { root: &a Main }\nflows: *a").isEmpty == false)
    }

    @Test func tenMegabytesOfJunkGiveErrorsNotACrash() throws {
        // Printable junk with YAML's special characters: 64 KiB of random text repeated to 10 MB.
        let printable = Array("abcdefghijklmnopqrstuvwxyz0123456789:{}[],-&*!|>'\"%@` \n\t#?".utf8)
        let chunk = (0..<65_536).map { _ in printable.randomElement() ?? 32 }
        let junk = String(decoding: Array(repeating: chunk, count: 160).joined(), as: UTF8.self)
        let diagnostics = problems(junk)
        #expect(!diagnostics.isEmpty)

        let url = FileManager.default.temporaryDirectory.appendingPathComponent("junk-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: url) }
        let binary = (0..<65_536).map { _ in UInt8.random(in: 0...255) }
        try Data(Array(repeating: binary, count: 160).joined()).write(to: url)
        let error = #expect(throws: FlowSpecError.self) { try FlowSpecification.load(contentsOf: url.path) }
        #expect(error?.diagnostics.isEmpty == false)
        let missing = #expect(throws: FlowSpecError.self) {
            try FlowSpecification.load(contentsOf: "/no/such/file.yaml")
        }
        #expect(missing?.code == .unreadableFile)
    }
}
