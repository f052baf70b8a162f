import FlowBus
import Foundation

@main
struct Presenter {
    static func main() async {
        do {
            let presenter = try await PresenterClient.connect(session: "kiosk-7")
            var tapped = false
            for await update in presenter.updates {
                // Draw the screens (here: write them out), then say what the user sees.
                FileHandle.standardOutput.write(Data("\(update.screens)\n".utf8))
                try presenter.reportVisibility(of: update.screens)
                // The user taps the movie list once, when it is the screen on top.
                guard !tapped, let top = update.screens.topmostVisibleScreen(of: .main),
                    top.description.name == "WishlistTable"
                else { continue }
                tapped = true
                let fate = try await presenter.emit(Step("movieIsPicked", ["withId": 23452]), from: top.id)
                FileHandle.standardOutput.write(Data("tap: \(fate)\n".utf8))
            }
        } catch {
            FileHandle.standardError.write(Data("presenter: \(error.message)\n".utf8))
            exit(error.code == .unreachable ? 69 : 1)
        }
    }
}
