import FlowBusTesting
import Foundation
import Testing

/// `flowdemo run --interactive` in a real terminal: tmux runs it, the test presses keys and reads the screen.
@Suite struct InteractiveDemoTests {
    /// A tmux server of the test's own.
    struct Tmux {
        let socket = "flowbus-\(UUID().uuidString.prefix(8))"

        func callAsFunction(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
            try run("/usr/bin/tmux", ["-L", socket] + arguments)
        }

        /// Starts the server with a session. Through `system`: the server lives on after the command, holding what
        /// it inherited, and Foundation's Process would wait for it to let go.
        func start(_ arguments: [String]) -> Int32 {
            let quoted = (["/usr/bin/tmux", "-L", socket] + arguments).map { "'" + $0 + "'" }
            return system(quoted.joined(separator: " ") + " </dev/null >/dev/null 2>&1")
        }

        /// What the terminal shows now.
        func screen() throws -> String {
            try self(["capture-pane", "-p", "-t", "demo"]).output
        }

        /// Waits until the terminal shows `text`.
        func waitForScreen(containing text: String) throws -> String {
            var last = ""
            let shown = waitUntil(within: .seconds(30)) {
                last = (try? screen()) ?? last
                return last.contains(text)
            }
            guard shown else {
                throw TestFailure("the terminal never showed \"\(text)\"; it shows:\n\(last)")
            }
            return last
        }
    }

    @Test func keysDriveThePresenterAndItRedraws() throws {
        let tmux = Tmux()
        defer { _ = try? tmux(["kill-server"]) }
        let runtime = uniqueDirectory("demo")
        let demo = try builtProduct("flowdemo")
        let started = tmux.start([
            "new-session", "-d", "-s", "demo", "-x", "120", "-y", "50", "-c", repositoryRoot.path,
            "\(demo) run --interactive --runtime-directory \(runtime)",
        ])
        #expect(started == 0)

        let intro = try tmux.waitForScreen(containing: "keys: 1 continue · q quit")
        #expect(intro.contains("● OnboardingIntro"))
        _ = try tmux(["send-keys", "-t", "demo", "1"])
        let apiKey = try tmux.waitForScreen(containing: "keys: 1 save the API key · b back · q quit")
        #expect(apiKey.contains("● OnboardingApiKey"))
        #expect(!apiKey.contains("● OnboardingIntro"))
        _ = try tmux(["send-keys", "-t", "demo", "1"])
        let dashboard = try tmux.waitForScreen(
            containing: "keys: 1 Up · 2 Interstellar · 3 settings · t next tab · q quit"
        )
        #expect(dashboard.contains("▦ dashboard: [Wishlist]  Watched"))
        _ = try tmux(["send-keys", "-t", "demo", "t"])
        let watched = try tmux.waitForScreen(containing: "── you selected the tab Watched")
        #expect(watched.contains("● WatchedCollection"))

        // q quits the presenter; the demo then stops everything and the terminal closes.
        _ = try tmux(["send-keys", "-t", "demo", "q"])
        #expect(waitUntil(within: .seconds(20)) { (try? tmux(["has-session", "-t", "demo"]).status) != 0 })
        // Nothing of the demo is left (the terminal's server may take a moment to go after its last session).
        let nothingLeft = waitUntil(within: .seconds(10)) {
            (try? run("/usr/bin/pgrep", ["-f", runtime]).output.isEmpty) ?? false
        }
        #expect(nothingLeft, "left: \((try? run("/usr/bin/pgrep", ["-af", runtime]).output) ?? "?")")
    }
}
