import FlowBus
import FlowInspector
import FlowWire
import Foundation

/// The scripted journey through RxFlow's movie app, played by the demo's processes: each action is sent to the
/// process that does it (the presenter for a user's taps, the steppers for theirs), and the journey waits until
/// flowd's tree shows its effect before the next.
struct DemoJourney {
    let stage: DemoStage

    func play() async throws {
        stage.say("flowd runs the movie app's flows; a terminal presenter joins session \(stage.session)")
        var presenter = try stage.startPresenter()
        try await stage.waitForVisible("app")
        stage.say("The app, authentication and settings steppers start; the app says onboarding comes first")
        let (app, auth, settings) = try stage.startSteppers()
        try await stage.waitForVisible("OnboardingIntro")

        try await act(
            "The user reads the intro and continues",
            presenter,
            "tap OnboardingIntro introIsComplete",
            shows: "OnboardingApiKey"
        )
        try await act(
            "…and saves an API key: the onboarding flow ends, and the app flow shows the dashboard",
            presenter,
            "tap OnboardingApiKey apiKeyIsFilledIn",
            shows: "WishlistTable"
        )

        try await act(
            "The user picks a movie in the wishlist",
            presenter,
            "tap WishlistTable movieIsPicked withId=14160",
            shows: "MovieDetail"
        )
        try await act("…and opens its cast", presenter, "tap MovieDetail castIsPicked withId=3", shows: "CastDetail")
        try await act("The user goes back", presenter, "dismiss CastDetail", shows: "MovieDetail")
        try await act("…and back again", presenter, "dismiss MovieDetail", shows: "WishlistTable")
        try await act("The user switches to the Watched tab", presenter, "select Watched", shows: "WatchedCollection")
        try await act("…and back to the wishlist", presenter, "select Wishlist", shows: "WishlistTable")

        try await stage.pause()
        stage.say("✖ The presenter process crashes (SIGKILL). flowd keeps its screens: hidden, not lost")
        stage.processes.kill(presenter)
        try await stage.waitFor("the wishlist hidden") { tree in
            tree.screens.contains { $0.name == "WishlistTable" && $0.visibility == .hidden }
        }
        try await stage.pause()
        stage.say("A new presenter process starts and asks flowd for a snapshot")
        presenter = try stage.startPresenter()
        try await stage.waitForVisible("WishlistTable")
        stage.say("✔ Back on the same screens: the navigation state lives in flowd, not in the crashed process")

        try await act(
            "The user opens the settings",
            presenter,
            "tap WishlistTable settingsAreRequired",
            shows: "SettingsList"
        )
        try await act(
            "The user asks for About without being logged in: adapt turns it into unauthorized, an alert shows",
            presenter,
            "tap SettingsList aboutIsRequired",
            shows: "Alert"
        )
        try await act("The user closes the alert", presenter, "dismiss Alert")
        try await stage.waitFor("the alert gone") { tree in !tree.screens.contains { $0.name == "Alert" } }
        try await stage.pause()
        stage.say("The user logs in: the authentication stepper grants the permission")
        try await stage.sendAndWaitForData(auth, "login ada", key: "permissions")
        try await act(
            "The user asks for About again: allowed",
            presenter,
            "tap SettingsList aboutIsRequired",
            shows: "About"
        )
        try await act(
            "The settings stepper says done: the settings flow ends, and its modal goes by itself",
            settings,
            "done"
        )
        try await stage.waitFor("the settings closed") { tree in
            !tree.screens.contains { $0.name == "SettingsList" }
                && tree.screens.contains { $0.name == "WishlistTable" && $0.visibility == .visible }
        }
        try await act("A deep link opens another movie", app, "deeplink movieIsPicked withId=157336")
        try await stage.waitFor("the deep-linked movie visible") { tree in
            tree.screens.contains {
                $0.name == "MovieDetail" && $0.parameters["movieId"] == 157336 && $0.visibility == .visible
            }
        }

        try await stage.pause()
        stage.say("The session's tree, as `flowctl tree \(stage.session)` shows it")
        try stage.showTree()
        stage.say("Done: every process stops now")
    }

    /// Narrates an action, pauses, sends it to the process that does it, and (with `shows`) waits until that
    /// screen is visible.
    private func act(
        _ narration: String,
        _ actor: DemoProcesses.Child,
        _ line: String,
        shows screen: String? = nil
    ) async throws {
        try await stage.pause()
        stage.say(narration)
        actor.send(line)
        if let screen {
            try await stage.waitForVisible(screen)
        }
    }
}

extension DemoStage {
    /// Sends `line` to `actor` and waits until flowd publishes the session data it sets: the data is not in the
    /// tree, so the journey reads flowd's inspection stream.
    func sendAndWaitForData(_ actor: DemoProcesses.Child, _ line: String, key: String) async throws {
        let stream = try await InspectionStream.open(session: session, options: options(timeout: .seconds(10)))
        let timer = Task {
            try await Task.sleep(for: .seconds(15))
            stream.close()
        }
        defer { timer.cancel() }
        actor.send(line)
        for await item in stream.items {
            if case .event(let event, _) = item, event.kind == "sessionData", event.fields["key"] == .string(key) {
                stream.close()
                return
            }
        }
        throw DemoFailure("the session data '\(key)' was not set within 15 s")
    }
}
