import FlowCore
import Foundation
import Testing

enum MovieStep: StepRepresentable, Codable, Equatable {
    case moviesAreRequired
    case movieIsPicked(withId: Int)
    case castIsPicked(withId: Int, name: String)
    case ratingIsGiven(Double)
}

@Suite struct StepTests {
    @Test func enumStepsBecomeNameAndLabelledParameters() {
        #expect(MovieStep.moviesAreRequired.step == Step("moviesAreRequired"))
        #expect(MovieStep.movieIsPicked(withId: 23452).step == Step("movieIsPicked", ["withId": 23452]))
        #expect(
            MovieStep.castIsPicked(withId: 3, name: "Ridley").step
                == Step("castIsPicked", ["withId": 3, "name": "Ridley"])
        )
        #expect(MovieStep.ratingIsGiven(4.5).step == Step("ratingIsGiven", ["_0": 4.5]))
    }

    @Test func stepsConvertBackToTheEnumAndForeignStepsDoNot() {
        for value in [
            MovieStep.moviesAreRequired, .movieIsPicked(withId: 7), .castIsPicked(withId: 1, name: "x"),
            .ratingIsGiven(2.5),
        ] {
            #expect(MovieStep(step: value.step) == value)
        }
        // Tried: an unknown name, a missing parameter, a parameter of the wrong type.
        #expect(MovieStep(step: Step("logout")) == nil)
        #expect(MovieStep(step: Step("movieIsPicked")) == nil)
        #expect(MovieStep(step: Step("movieIsPicked", ["withId": "seven"])) == nil)
    }

    @Test func homeAndNoneExistAndNoneIsRecognised() {
        #expect(Step.home.name == "home")
        #expect(Step.none.isNone)
        #expect(!Step.home.isNone)
        #expect(Stepper.default == .one(.home))
        #expect(Stepper.one(.none).initialSteps.isEmpty)
    }

    @Test func compositeSteppersListInitialStepsInOrderAndTheirSources() {
        let stepper = Stepper.composite([
            .one(.one), .named("auth"), .composite([.one(.two), .presentable]), .one(.three),
        ])
        #expect(stepper.initialSteps == [.one, .two, .three])
        #expect(stepper.stepperIDs == ["auth"])
        #expect(stepper.listensToPresentable)
    }

    @Test func stepsAndJSONValuesRoundTripThroughJSON() throws {
        let step = Step(
            "movieIsPicked",
            ["withId": 23452, "title": "Alien \"director's cut\"", "rating": 8.5, "tags": ["sf", nil], "adult": false]
        )
        let data = try JSONEncoder().encode(step)
        #expect(try JSONDecoder().decode(Step.self, from: data) == step)
        #expect(
            JSONValue.object(step.parameters).description
                == #"{"adult":false,"rating":8.5,"tags":["sf",null],"title":"Alien \"director's cut\"","withId":23452}"#
        )
    }
}
