import ArgumentParser
import FlowBus
import FlowDemo
import Foundation

/// `flowdemo app`: the application's stepper, which decides what comes first and sends deep links.
struct App: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The app stepper: says whether onboarding or the dashboard comes first, and sends deep links.",
        discussion: """
            Lines on standard input: `deeplink STEP [key=value...]` (a path: steps separated by ` > `), \
            `emit STEP [key=value...]`, `quit`. It stops at the end of its input.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Start on the dashboard instead of onboarding (a returning user).")
    var returning = false

    func run() async throws {
        let first = Step(returning ? "dashboardIsRequired" : "onboardingIsRequired")
        try await StepperProcess(name: "app", connection: connection, initialStep: first).run { line, client in
            let words = line.split(separator: " ").map(String.init)
            guard words.first == "deeplink", words.count >= 2 else { return nil }
            let path = try words.dropFirst().split(separator: ">").map { try PresenterInput.step($0) }
            return "deeplink \(path.map(\.description).joined(separator: " > ")): \(try await client.deepLink(path))"
        }
    }
}

/// `flowdemo auth`: the authentication stepper; a login grants the permissions the session's rules read.
struct Auth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The authentication stepper: `login NAME` grants the \"about\" permission, `logout` takes it back.",
        discussion: "Lines on standard input: `login NAME`, `logout`, `emit STEP [key=value...]`, `quit`."
    )

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await StepperProcess(name: "auth", connection: connection, initialStep: nil).run { line, client in
            let words = line.split(separator: " ").map(String.init)
            switch words.first {
            case "login" where words.count == 2:
                try await client.setSessionData("permissions", to: ["about"])
                return "\(words[1]) logged in: permissions = [\"about\"]"
            case "logout" where words.count == 1:
                try await client.setSessionData("permissions", to: nil)
                return "logged out: no permissions"
            default:
                return nil
            }
        }
    }
}

/// `flowdemo settings`: the settings stepper, which the settings flow listens to.
struct Settings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The settings stepper: `done` closes the settings (settingsAreComplete).",
        discussion: """
            The settings flow listens to it while it runs; a step emitted when the settings are closed is dropped, \
            and the reason is printed. Lines on standard input: `done`, `emit STEP [key=value...]`, `quit`.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await StepperProcess(name: "settings", connection: connection, initialStep: nil).run { line, client in
            guard line.trimmingCharacters(in: .whitespaces) == "done" else { return nil }
            return "done: \(try await client.emit("settingsAreComplete"))"
        }
    }
}

/// `flowdemo stepper --name NAME`: a stepper process of any name, driven by lines — for flows of your own, and for
/// tests that need real stepper processes.
struct GenericStepper: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepper",
        abstract: "A stepper of any name: emits the steps its standard input asks for and prints their fates.",
        discussion: """
            Lines on standard input: `emit STEP [key=value...]`, `deeplink STEP [key=value...] [> STEP...]`, \
            `quit`; one at a time, each waiting for its fate (kept and sent again while flowd is away).
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "The stepper's name, as flows name it (`stepper: { named: NAME }`).")
    var name: String

    func run() async throws {
        try await StepperProcess(name: name, connection: connection, initialStep: nil).run { line, client in
            let words = line.split(separator: " ").map(String.init)
            guard words.first == "deeplink", words.count >= 2 else { return nil }
            let path = try words.dropFirst().split(separator: ">").map { try PresenterInput.step($0) }
            return "deeplink \(path.map(\.description).joined(separator: " > ")): \(try await client.deepLink(path))"
        }
    }
}

/// A stepper process of the demo: it connects, then carries out the lines of its standard input.
struct StepperProcess {
    let name: String
    let connection: ConnectionOptions
    let initialStep: Step?

    /// Connects, then runs each input line through `command` (its own commands; `nil` when the line is not
    /// one), or as `emit STEP...` or `quit`; prints what came of each line, prefixed with the stepper's name.
    func run(_ command: (String, StepperClient) async throws -> String?) async throws {
        let client: StepperClient
        do {
            client = try await StepperClient.connect(
                session: connection.session,
                name: name,
                options: connection.clientOptions,
                initialStep: initialStep
            )
        } catch {
            FileHandle.standardError.write(Data("flowdemo \(name): \(error)\n".utf8))
            throw ExitCode(69)
        }
        say("connected to session \(connection.session)\(initialStep.map { ", first step \($0)" } ?? "")")
        for await line in standardInputLines() {
            let words = line.split(separator: " ").map(String.init)
            guard !words.isEmpty else { continue }
            if words == ["quit"] {
                break
            }
            do {
                if let answer = try await command(line, client) {
                    say(answer)
                } else if words[0] == "emit", words.count >= 2 {
                    let step = try PresenterInput.step(words[1...])
                    say("emit \(step): \(try await client.emit(step))")
                } else {
                    say("? unknown command '\(line)'")
                }
            } catch {
                say("\(line): \(error)")
            }
        }
        await client.close()
    }

    private func say(_ text: String) {
        FileHandle.standardOutput.write(Data("[\(name)] \(text)\n".utf8))
    }
}
