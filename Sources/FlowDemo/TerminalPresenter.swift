import FlowBus
import Foundation

/// The demo's terminal presenter: it draws the window flowd describes after every update, reports what is
/// visible, and turns input lines into taps on screens.
public struct TerminalPresenter: Sendable {
    /// Where it writes: a frame per update, and a line per tap.
    public var write: @Sendable (String) -> Void
    /// Whether each frame replaces the last (a terminal) instead of following it (a log, a pipe).
    public var redraws: Bool
    let renderer: ScreenRenderer

    public init(presenter: String, redraws: Bool, write: @escaping @Sendable (String) -> Void) {
        self.write = write
        self.redraws = redraws
        self.renderer = ScreenRenderer(presenter: PresenterID(presenter))
    }

    /// Draws every update until `input` says quit (the end of `input` only stops reading it).
    public func run(_ client: PresenterClient, input: AsyncStream<String>) async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await line in input {
                    if await !handle(line, client) {
                        await client.close()
                        return
                    }
                }
            }
            for await update in client.updates {
                draw(update)
                try? client.reportVisibility(of: update.screens)
            }
        }
    }

    /// The frame for one update: a title line, then the window.
    public func frame(_ update: PresenterUpdate) -> String {
        let title: String
        switch update {
        case .rebuild(let rebuild):
            let count = rebuild.screens.nodes.count
            title =
                rebuild.reason == .start && count > 1
                ? "rebuilt from flowd's snapshot: back on the same screens "
                    + "(\(count) presentables, navigation \(rebuild.sequence))"
                : "rebuilt (\(rebuild.reason.rawValue)): \(count) presentables (navigation \(rebuild.sequence))"
        case .navigate(let navigation):
            let step = navigation.step.map { " after \($0)" } ?? ""
            let operations = navigation.commands.map(\.operation).joined(separator: ", ")
            title = "navigation \(navigation.sequence) by flow \(navigation.flow)\(step): \(operations)"
        }
        return (["── \(title)"] + renderer.render(update.screens)).joined(separator: "\n")
    }

    private func draw(_ update: PresenterUpdate) {
        write((redraws ? "\u{1B}[2J\u{1B}[H" : "") + frame(update) + "\n")
    }

    /// Carries out one input line; returns `false` to quit.
    private func handle(_ line: String, _ client: PresenterClient) async -> Bool {
        let input: PresenterInput
        do {
            input = try PresenterInput(parsing: line)
        } catch {
            write("? \(error)\n")
            return true
        }
        switch input {
        case .quit:
            return false
        case .tap(let screen, let step):
            guard let id = client.screens.lastPresentable(named: screen) else {
                write("tap \(screen) \(step): \(screen) is not on screen\n")
                return true
            }
            do {
                let fate = try await client.emit(step, from: id)
                write("tap \(screen) \(step): \(fate)\n")
            } catch {
                write("tap \(screen) \(step): \(error)\n")
            }
        case .dismiss(let screen):
            guard let id = client.screens.lastPresentable(named: screen) else {
                write("dismiss \(screen): it is not on screen\n")
                return true
            }
            try? client.report(.dismissed, [id])
            write("dismiss \(screen): reported\n")
        }
        return true
    }
}

extension ScreenTree {
    /// The most recently placed presentable with this name.
    func lastPresentable(named name: String) -> PresentableID? {
        nodes.values.filter { $0.description.name == name }.map(\.id).max()
    }
}
