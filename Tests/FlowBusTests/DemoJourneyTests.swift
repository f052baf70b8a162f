import FlowBus
import FlowBusTesting
import FlowCore
import Foundation
import Testing

/// RxFlow's demo app end to end through a real flowd: onboarding, a movie and its cast, back, settings with About
/// refused then allowed, settings closed by ending their flow, and a deep link.
@Suite struct DemoJourneyTests {
    @Test(arguments: Transport.allCases)
    func theMovieAppJourneyRunsThroughARealDaemon(transport: Transport) async throws {
        let daemon = try Daemon(transport)
        let presenter = UpdateRecorder(try await PresenterClient.connect(session: "kiosk", options: daemon.options()))
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: daemon.options())
        let client = presenter.presenter

        /// A tap on the screen `name`, once it is on screen and reported visible.
        func tap(_ name: String, _ step: Step, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            var last: Fate?
            do {
                try await eventually {
                    guard let screen = presenter.presentable(named: name) else { return false }
                    last = try await client.emit(step, from: screen)
                    return last?.isAccepted ?? false
                }
            } catch {
                Issue.record(
                    "tap \(name) \(step): \(last.map(\.description) ?? "never on screen")",
                    sourceLocation: sourceLocation
                )
                throw error
            }
        }
        func shows(_ names: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
            try await presenter.wait(sourceLocation: sourceLocation) { _ in
                Array(presenter.visibleNames.suffix(names.count)) == names
            }
        }

        #expect(try await app.emit("onboardingIsRequired").isAccepted)
        try await shows(["onboarding", "OnboardingIntro"])
        try await tap("OnboardingIntro", Step("introIsComplete"))
        try await shows(["OnboardingApiKey"])
        // Ending OnboardingFlow sends onboardingIsComplete to AppFlow, which dismisses it and shows the dashboard.
        try await tap("OnboardingApiKey", Step("apiKeyIsFilledIn"))
        try await shows(["app", "dashboard", "wishlist", "WishlistTable"])

        try await tap("WishlistTable", Step("movieIsPicked", ["withId": 7]))
        try await tap("MovieDetail", Step("castIsPicked", ["withId": 3]))
        try await shows(["CastDetail"])
        // The user goes back twice: the screens are dismissed, the table is visible again.
        for name in ["CastDetail", "MovieDetail"] {
            try client.report(.dismissed, [try #require(presenter.presentable(named: name))])
        }
        try await eventually { client.screens.lastScreen(of: "main") == "WishlistTable" }

        try await tap("WishlistTable", Step("settingsAreRequired"))
        try await shows(["settings", "SettingsList", "SettingsLogin"])
        // About needs the "about" permission: without it the step becomes unauthorized, and an alert shows.
        try await tap("SettingsList", Step("aboutIsRequired"))
        try await shows(["Alert"])
        try client.report(.dismissed, [try #require(presenter.presentable(named: "Alert"))])
        try await app.setSessionData("permissions", to: ["about"])
        try await tap("SettingsList", Step("aboutIsRequired"))
        try await shows(["settings", "SettingsList", "About"])
        // Ending SettingsFlow restores its parent: the modal goes away by itself.
        try await tap("SettingsList", Step("settingsAreComplete"))
        try await shows(["app", "dashboard", "wishlist", "WishlistTable"])

        // A deep link reaches every flow: the wishlist shows the movie.
        #expect(try await app.deepLink([Step("movieIsPicked", ["withId": 42])]).isAccepted)
        try await presenter.wait { _ in presenter.visibleNames.last == "MovieDetail" }
        let detail = try #require(presenter.presentable(named: "MovieDetail"))
        #expect(presenter.updates.last?.screens[detail]?.description.parameters["movieId"] == 42)
        await app.close()
        await client.close()
    }
}

extension ScreenTree {
    /// The name of the last screen visible to a presenter's user.
    fileprivate func lastScreen(of presenter: PresenterID) -> String? {
        visiblePresentables(of: presenter).last.flatMap { self[$0]?.description.name }
    }
}
