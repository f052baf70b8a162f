import FlowCore
import FlowSpec
import Testing

/// A step's parameters, declared with their types (required, or optional with `?`), are checked against what a
/// step from outside carries: the first that does not match is named, with how.
@Suite struct StepParameterTests {
    private let yaml = """
        version: 1
        session:
          root: Main
        steps:
          movieIsPicked: { withId: int, title: string? }
          anything: { payload: any }
          plain: {}
        flows:
          Main:
            root: { stack: main }
            on:
              movieIsPicked:
                - show: Detail
                  params: { id: $withId, title: $title }
              anything: []
              plain: []
        """

    @Test func requiredAndOptionalParametersAreRead() throws {
        let spec = try specification(yaml)
        let declared = try #require(spec.step(named: "movieIsPicked")).parameters
        #expect(declared.map(\.name) == ["withId", "title"])
        #expect(declared.map(\.type) == [.int, .string])
        #expect(declared.map(\.optional) == [false, true])
    }

    /// Tried: the required parameter missing, null, a string, an object; the optional one of the wrong type; a
    /// parameter no declaration has; accepted: the optional one left out or null, `any` of any kind.
    @Test func aStepWhoseParametersDoNotMatchIsNamedWithTheProblem() throws {
        let spec = try specification(yaml)
        func problem(_ step: Step) -> String? {
            guard case .invalidParameters(_, let parameter, let problem)? = spec.parameterProblem(of: step) else {
                return nil
            }
            return "\(parameter) \(problem)"
        }
        #expect(problem(Step("movieIsPicked")) == "withId is missing (it must be an int)")
        #expect(problem(Step("movieIsPicked", ["withId": .null])) == "withId is null (it must be an int)")
        #expect(problem(Step("movieIsPicked", ["withId": "abc"])) == "withId must be an int, not a string")
        #expect(problem(Step("movieIsPicked", ["withId": .object([:])])) == "withId must be an int, not an object")
        #expect(
            problem(Step("movieIsPicked", ["withId": 5, "title": 7])) == "title must be a string, not a number"
        )
        #expect(problem(Step("plain", ["extra": 1])) == "extra is not declared for plain")
        // As many as declared, one of them not declared; the optional one null and the required one left out.
        #expect(problem(Step("movieIsPicked", ["withId": 5, "bogus": 1])) == "bogus is not declared for movieIsPicked")
        #expect(problem(Step("movieIsPicked", ["title": .null])) == "withId is missing (it must be an int)")
        #expect(problem(Step("movieIsPicked", ["title": "Heat"])) == "withId is missing (it must be an int)")
        #expect(problem(Step("movieIsPicked", ["withId": 5])) == nil)
        #expect(problem(Step("movieIsPicked", ["withId": 5, "title": .null])) == nil)
        #expect(problem(Step("movieIsPicked", ["withId": 5, "title": "Heat"])) == nil)
        #expect(problem(Step("anything", ["payload": ["a": [1, 2]]])) == nil)
        // A step no declaration has is refused before (unknownStep), not here.
        #expect(problem(Step("teleport", ["x": 1])) == nil)
        let reason = try #require(spec.parameterProblem(of: Step("movieIsPicked")))
        #expect(reason.code == "invalidParameters")
        #expect(reason.description == "movieIsPicked's parameter 'withId' is missing (it must be an int)")
    }

    /// Past the few parameters compared by name, they are looked up: a step of twelve is checked the same way.
    @Test func aStepOfManyParametersIsCheckedTheSameWay() throws {
        let names = (1...12).map { "p\($0)" }
        let spec = try specification(
            """
            version: 1
            session:
              root: Main
            steps:
              many: { \(names.map { "\($0): int" }.joined(separator: ", ")), note: string? }
            flows:
              Main:
                root: { stack: main }
                on:
                  many: []
            """
        )
        var given = JSONObject(uniqueKeysWithValues: names.map { ($0, JSONValue.int(1)) })
        #expect(spec.parameterProblem(of: Step("many", given)) == nil)
        given["note"] = 3
        #expect(
            spec.parameterProblem(of: Step("many", given))
                == .invalidParameters(step: "many", parameter: "note", problem: "must be a string, not a number")
        )
        given["note"] = nil
        given["p7"] = nil
        #expect(
            spec.parameterProblem(of: Step("many", given))
                == .invalidParameters(step: "many", parameter: "p7", problem: "is missing (it must be an int)")
        )
    }

    @Test func aTypeThatIsNotOneIsReportedWithTheOptionalForm() {
        let bad = yaml.replacingOccurrences(of: "title: string?", with: "title: text?")
        let found = problems(bad)
        #expect(found.contains { $0.message.contains("(with ? after it when the parameter may be left out)") })
    }
}
