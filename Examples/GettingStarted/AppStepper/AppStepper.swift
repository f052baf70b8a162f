import FlowBus
import Foundation

/// The movie app's steps. A case's associated values are the step's parameters, under their labels (label them:
/// `case movieIsPicked(withId: Int)`).
enum AppStep: StepRepresentable, Codable {
    case onboardingIsRequired
    case dashboardIsRequired
}

@main
struct AppStepper {
    static func main() async {
        do {
            // flowd is found as flowctl finds it: FLOWBUS_CONTROL and FLOWBUS_EVENTS, else its default endpoints.
            let app = try await StepperClient.connect(session: "kiosk-7", name: "app")
            let fate = try await app.emit(AppStep.dashboardIsRequired)
            switch fate {
            case .accepted(let flows):
                print("accepted by", flows)
            case .dropped(let drop):
                print("dropped:", drop.explanation, drop.remedy ?? "")
            }
            await app.close()
        } catch {
            // flowd is not there (unreachable), or refused this stepper (refused): say why, and exit non-zero.
            FileHandle.standardError.write(Data("app stepper: \(error.message)\n".utf8))
            exit(error.code == .unreachable ? 69 : 1)
        }
    }
}
