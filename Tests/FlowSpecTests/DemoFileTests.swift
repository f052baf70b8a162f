import FlowBusTesting
import FlowCore
import FlowSpec
import Testing

@Suite struct DemoFileTests {
    @Test func theDemoFileLoadsWithEveryFlowOfRxFlowsDemo() throws {
        let spec = try FlowSpecification.load(contentsOf: demoFlows)
        #expect(
            spec.flows.map(\.name) == [
                "AppFlow", "OnboardingFlow", "DashboardFlow", "WishlistFlow", "WatchedFlow", "SettingsFlow",
            ]
        )
        #expect(spec.summary == "6 flows, 15 steps, 11 screens")
    }

    @Test func aScriptedJourneyThroughTheDemoProducesTheExpectedCommands() throws {
        var app = try Driver(try FlowSpecification.load(contentsOf: demoFlows))
        #expect(app.commands == ["setWindowRoot app"])

        // Onboarding: presented modally, two screens, then it ends and the dashboard replaces it.
        #expect(app.emit(Step("onboardingIsRequired"), from: "app")?.isAccepted == true)
        #expect(app.visibleNames == ["onboarding", "OnboardingIntro"])
        #expect(try app.tap(Step("introIsComplete"), on: "OnboardingIntro")?.isAccepted == true)
        #expect(try app.tap(Step("apiKeyIsFilledIn"), on: "OnboardingApiKey")?.isAccepted == true)
        #expect(app.flowNames == ["AppFlow", "DashboardFlow", "WishlistFlow", "WatchedFlow"])
        #expect(app.visibleNames == ["app", "dashboard", "wishlist", "WishlistTable"])

        // Pick a movie, then its cast, in the wishlist stack; the movie id travels as a screen parameter.
        #expect(try app.tap(Step("movieIsPicked", ["withId": 23452]), on: "WishlistTable")?.isAccepted == true)
        let detail = try #require(app.presentable(named: "MovieDetail"))
        #expect(app.engine.screens(of: app.session)?[detail]?.description.parameters == ["movieId": 23452])
        #expect(try app.tap(Step("castIsPicked", ["withId": 7]), on: "MovieDetail")?.isAccepted == true)
        #expect(app.visibleNames.last == "CastDetail")

        // Settings, presented modally from the wishlist as master/detail.
        #expect(try app.tap(Step("settingsAreRequired"), on: "CastDetail")?.isAccepted == true)
        #expect(app.visibleNames == ["settings", "SettingsList", "SettingsLogin"])

        // About is refused without the permission (adapted to unauthorized: an alert), allowed with it.
        _ = try app.tap(Step("aboutIsRequired"), on: "SettingsList")
        #expect(app.visibleNames == ["Alert"])
        let alert = try #require(app.presentable(named: "Alert"))
        app.log.append(try app.engine.report(.dismissed, of: [alert], session: app.session))
        try app.engine.setSessionData("permissions", ["about"], session: app.session)
        _ = try app.tap(Step("aboutIsRequired"), on: "SettingsList")
        #expect(app.visibleNames == ["settings", "SettingsList", "About"])

        // Settings end: the engine dismisses the modal itself (restoreParentOnEnd).
        #expect(try app.tap(Step("settingsAreComplete"), on: "SettingsList")?.isAccepted == true)
        #expect(app.visibleNames == ["app", "dashboard", "wishlist", "CastDetail"])
        #expect(app.flowNames == ["AppFlow", "DashboardFlow", "WishlistFlow", "WatchedFlow"])

        #expect(
            app.commands == [
                "setWindowRoot app", "present onboarding", "push OnboardingIntro", "push OnboardingApiKey",
                "dismiss", "push dashboard", "setTabs wishlist,watched", "push WishlistTable",
                "push WatchedCollection", "push MovieDetail", "push CastDetail", "present settings",
                "setMaster SettingsList", "setDetail SettingsLogin", "present Alert", "setDetail About", "dismiss",
            ]
        )
    }
}
