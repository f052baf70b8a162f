import FlowCore
import FlowSpec
import Testing

/// Each construct of the format, compiled and driven through FlowCore.
@Suite struct ConstructTests {
    /// A file header declaring only `steps` (all of the first's parameters), started by `start`.
    private func header(_ steps: String...) -> String {
        let declarations = steps.map { step in
            step == "pick" ? "  pick: { withId: int, label: string }" : "  \(step): {}"
        }
        return """
            version: 1
            session:
              root: Main
              stepper: { composite: [ { one: start }, { named: app } ] }
            steps:
              start: {}

            """ + declarations.joined(separator: "\n")
    }

    @Test func showContributesTheScreenWithItsOwnStepperAndBindsParameters() throws {
        var app = try Driver(
            try specification(
                header("pick", "again", "up", "done", "back", "home", "quiet", "tab") + """

                    flows:
                      Main:
                        root: { stack: main }
                        on:
                          start:
                            - show: List
                          pick:
                            - show: Detail
                              params: { movieId: $withId, label: $label, fixed: 3, escaped: "$$withId" }
                          again: []
                          up: none
                          done: none
                          back:
                            - pop: top
                          home:
                            - pop: root
                          quiet:
                            - show: Banner
                              contribute: false
                          tab: none
                    """
            )
        )
        #expect(app.visibleNames == ["main", "List"])
        #expect(try app.tap(Step("pick", ["withId": 5, "label": "x"]), on: "List")?.isAccepted == true)
        let detail = try #require(app.presentable(named: "Detail"))
        #expect(
            app.engine.screens(of: app.session)?[detail]?.description.parameters
                == ["movieId": 5, "label": "x", "fixed": 3, "escaped": "$withId"]
        )
        #expect(try app.tap(Step("pick", ["withId": 6, "label": "y"]), on: "Detail")?.isAccepted == true)
        app.emit(Step("back"), from: "app")
        #expect(app.visibleNames.last == "Detail")
        app.emit(Step("home"), from: "app")
        #expect(app.visibleNames.last == "List")
        app.emit(Step("quiet"), from: "app")
        let banner = try #require(app.presentable(named: "Banner"))
        // Not contributed: its own steps are unbound.
        _ = try app.engine.report(.visible, of: [banner], session: app.session)
        let fate = app.engine.receive(Step("again"), from: .presentable(banner), session: app.session)
        #expect(fate.effects.fate(of: fate.token) == .dropped(.unboundStepper))
    }

    /// Parameters passed on under their own names are the step's own (shared, not rebuilt): tried with both given,
    /// one left out (null in the screen's), one more than the template has (left out of the screen's), and a template
    /// that swaps the names (not passed on as they are).
    @Test func parametersPassedOnUnderTheirOwnNamesAreTheStepsOwn() throws {
        var app = try Driver(
            try specification(
                """
                version: 1
                session:
                  root: Main
                  stepper: { named: app }
                steps:
                  pick: { withId: int, label: string? }
                  swap: { withId: int, label: string }
                flows:
                  Main:
                    root: { stack: main }
                    on:
                      pick:
                        - show: Detail
                          params: { withId: $withId, label: $label }
                      swap:
                        - show: Swapped
                          params: { withId: $label, label: $withId }
                """
            )
        )
        func shown(_ step: Step, as name: String) throws -> JSONObject? {
            #expect(app.emit(step, from: "app")?.isAccepted == true)
            let screen = try #require(app.presentable(named: name))
            return app.engine.screens(of: app.session)?[screen]?.description.parameters
        }
        #expect(try shown(Step("pick", ["withId": 5, "label": "x"]), as: "Detail") == ["withId": 5, "label": "x"])
        #expect(try shown(Step("pick", ["withId": 6]), as: "Detail") == ["withId": 6, "label": .null])
        #expect(
            try shown(Step("pick", ["withId": 7, "label": "y", "extra": true]), as: "Detail")
                == ["withId": 7, "label": "y"]
        )
        #expect(try shown(Step("swap", ["withId": 8, "label": "z"]), as: "Swapped") == ["withId": "z", "label": 8])
    }

    @Test func startRunsAChildFlowWithEachKindOfStepperAndBothFlags() throws {
        var app = try Driver(
            try specification(
                header("pick", "again", "up", "done", "home", "tab") + """

                    flows:
                      Main:
                        root: { stack: main }
                        on:
                          start:
                            - start: Child
                              as: present
                              stepper: { composite: [ { one: { step: pick, params: { withId: 1, label: first } } }, { named: child }, default, none, own ] }
                              allowStepWhenDismissed: true
                          done:
                            - dismiss: presented
                      Child:
                        root: { stack: child }
                        on:
                          pick:
                            - show: Detail
                              params: { id: $withId }
                              stepper: { named: detail }
                              allowStepWhenNotPresented: true
                          home:
                            - show: Home
                          again:
                            - show: Again
                              stepper: default
                          up:
                            - forwardToParentFlow: done
                          tab:
                            - forwardToCurrentFlow: { step: pick, params: { withId: 9, label: z } }
                    """
            )
        )
        // Composite: `pick` then `home` (default) as initial steps, then the named stepper's steps.
        #expect(app.log.navigations == ["Main:start", "Child:pick", "Child:home"])
        #expect(app.emit(Step("again"), from: "child")?.isAccepted == true)
        // `Again` is contributed with the default stepper; its `home` is dropped: the screen is not visible yet.
        #expect(app.log.navigations.last == "Child:again")
        let again = try #require(app.presentable(named: "Again"))
        #expect(app.log.fates.contains { $0.fate == .dropped(.notVisible(again, .unknown)) })
        // allowStepWhenNotPresented: the detail's named stepper is heard though nothing was reported visible.
        #expect(app.emit(Step("tab"), from: "detail")?.isAccepted == true)
        #expect(app.log.navigations.suffix(2) == ["Child:tab", "Child:pick"])
        // The child's root was presented over Main; forwarding `done` to Main dismisses it, and the child
        // (allowStepWhenDismissed) keeps running.
        #expect(app.emit(Step("up"), from: "child")?.isAccepted == true)
        #expect(app.visibleNames == ["main"])
        #expect(app.flowNames == ["Main", "Child"])
    }

    @Test func endForwardsToTheParentAndRestoreParentOnEndRemovesTheChildsRoot() throws {
        for restores in [false, true] {
            var app = try Driver(
                try specification(
                    header("pick", "up", "done") + """

                        flows:
                          Main:
                            root: { stack: main }
                            on:
                              start:
                                - start: Child
                                  as: present
                                  stepper: { named: child }
                              done: none
                          Child:
                            root: { split: child }
                            restoreParentOnEnd: \(restores)
                            on:
                              pick:
                                - show: Master
                                  as: master
                                - show: Detail
                                  as: detail
                              up:
                                - show: Goodbye
                                  as: detail
                                  contribute: false
                                - end: done
                        """
                )
            )
            app.emit(Step("pick", ["withId": 1, "label": "a"]), from: "child")
            #expect(app.visibleNames == ["child", "Master", "Detail"])
            app.emit(Step("up"), from: "child")
            #expect(app.log.navigations.suffix(2) == ["Child:up", "Main:done"])
            #expect(app.flowNames == ["Main"])
            #expect(app.visibleNames == (restores ? ["main"] : ["child", "Master", "Goodbye"]))
        }
    }

    @Test func tabsWindowsAndSelectTabPlaceScreensAndFlows() throws {
        var app = try Driver(
            try specification(
                header("home", "tab") + """

                    flows:
                      Main:
                        root: { tabs: main }
                        on:
                          start:
                            - tabs:
                                - show: First
                                - start: Second
                                  stepper: { one: home }
                              selected: 1
                            - show: Cluster
                              as: window
                              presenter: cluster
                          tab:
                            - selectTab: 0
                      Second:
                        root: { stack: second }
                        on:
                          home:
                            - show: SecondHome
                    """
            )
        )
        #expect(app.visibleNames == ["main", "second", "SecondHome"])
        #expect(app.engine.screens(of: app.session)?.visiblePresentables(of: "cluster").count == 1)
        app.emit(Step("tab"), from: "app")
        #expect(app.visibleNames == ["main", "First"])
    }

    @Test func adaptRulesUseSessionDataOrAskAGuard() throws {
        var app = try Driver(
            try specification(
                header("pick", "again", "tab", "up", "back") + """

                    flows:
                      Main:
                        root: { stack: main }
                        adapt:
                          pick:
                            requires: { permission: movies }
                            else: back
                          again:
                            requires: { data: role, equals: admin }
                          tab:
                            requires: { data: loggedIn }
                            else: { step: pick, params: { withId: 0, label: login } }
                          up:
                            guard: { name: parental, subject: adult }
                            else: back
                        on:
                          start: none
                          pick:
                            - show: Picked
                          again:
                            - show: Again
                          tab:
                            - show: Tab
                          up:
                            - show: Up
                          back:
                            - show: Refused
                    """
            )
        )
        let pick = Step("pick", ["withId": 1, "label": "a"])
        app.emit(pick, from: "app")
        #expect(app.log.navigations.last == "Main:back")
        try app.engine.setSessionData("permissions", ["movies"], session: app.session)
        app.emit(pick, from: "app")
        #expect(app.log.navigations.last == "Main:pick")

        #expect(app.emit(Step("again"), from: "app") == .dropped(.adaptedAway(FlowID(1))))
        try app.engine.setSessionData("role", "admin", session: app.session)
        #expect(app.emit(Step("again"), from: "app")?.isAccepted == true)

        app.emit(Step("tab"), from: "app")
        // Not logged in: redirected to pick (which now passes, with the parameters of the rule).
        #expect(app.log.navigations.last == "Main:pick")
        try app.engine.setSessionData("loggedIn", true, session: app.session)
        app.emit(Step("tab"), from: "app")
        #expect(app.log.navigations.last == "Main:tab")

        let asked = app.engine.receive(Step("up"), from: .stepper("app"), session: app.session)
        let question = try #require(asked.effects.questions.first)
        #expect(question.question.guardName == "parental")
        #expect(question.question.subject == "adult")
        let refused = try app.engine.answerGuard(question.id, allowed: false, session: app.session)
        #expect(refused.navigations == ["Main:back"])
    }
}

extension Effects {
    var navigations: [String] {
        events.compactMap { event in
            if case .didNavigate(_, let name, let step, _) = event.kind { "\(name):\(step.name)" } else { nil }
        }
    }
}
