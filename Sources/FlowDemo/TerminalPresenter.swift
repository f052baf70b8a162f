import FlowBus
import Foundation
import Synchronization

/// The demo's terminal presenter: it draws the window flowd describes after every update, reports what is
/// visible, and turns input — lines, or single keys from the menu it shows — into taps, backs and tab switches.
///
/// Which tab is selected belongs to the user, as in any tab bar: switching tabs changes what this presenter
/// shows and reports (the tab left is hidden, the one shown visible), until flowd selects a tab itself.
public final class TerminalPresenter: Sendable {
    /// Where it writes: a frame per update, and a line per tap.
    public let write: @Sendable (String) -> Void
    /// Whether each frame replaces the last (a terminal) instead of following it (a log, a pipe).
    public let redraws: Bool
    /// Whether it shows a menu of keys under each frame and reads single keys.
    public let keys: Bool
    let presenter: PresenterID
    let renderer: ScreenRenderer
    private let state = Mutex(DisplayState())

    struct DisplayState {
        /// Tabs the user selected, by tab container.
        var selections: [PresentableID: Int] = [:]
        /// What is drawn: flowd's screens with the user's selections.
        var shown = ScreenTree()
        var menu: DemoMenu?
    }

    public init(presenter: String, redraws: Bool, keys: Bool = false, write: @escaping @Sendable (String) -> Void) {
        self.write = write
        self.redraws = redraws
        self.keys = keys
        self.presenter = PresenterID(presenter)
        self.renderer = ScreenRenderer(presenter: PresenterID(presenter))
    }

    /// Draws every update until `input` says quit (the end of `input` only stops reading it). With ``keys``, each
    /// element of `input` is a key.
    public func run(_ client: PresenterClient, input: AsyncStream<String>) async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await line in input {
                    if await !self.handle(line, client) {
                        await client.close()
                        return
                    }
                }
            }
            for await update in client.updates {
                let shown = display(update)
                // Reported before it is drawn: a tap on what the user sees then goes out after the report,
                // on the same connection, and is never dropped as not visible.
                try? client.reportVisibility(of: shown)
                draw(title(update), shown)
            }
        }
    }

    /// The frame for one update: a title line, then the window.
    public func frame(_ update: PresenterUpdate) -> String {
        (["── \(title(update))"] + renderer.render(update.screens)).joined(separator: "\n")
    }

    private func title(_ update: PresenterUpdate) -> String {
        switch update {
        case .rebuild(let rebuild):
            let count = rebuild.screens.nodes.count
            return rebuild.reason == .start && count > 1
                ? "rebuilt from flowd's snapshot: back on the same screens "
                    + "(\(count) presentables, navigation \(rebuild.sequence))"
                : "rebuilt (\(rebuild.reason.rawValue)): \(count) presentable\(count == 1 ? "" : "s") "
                    + "(navigation \(rebuild.sequence))"
        case .navigate(let navigation):
            let step = navigation.step.map { " after \($0)" } ?? ""
            let operations = navigation.commands.map(\.operation).joined(separator: ", ")
            return "navigation \(navigation.sequence) by flow \(navigation.flow)\(step): \(operations)"
        }
    }

    /// flowd's screens after an update, with the user's tab selections (dropped where flowd chose a tab).
    private func display(_ update: PresenterUpdate) -> ScreenTree {
        var chosenByFlowd: Set<PresentableID> = []
        if case .navigate(let navigation) = update {
            for command in navigation.commands {
                if case .setTabs(let tabs, _, _) = command { chosenByFlowd.insert(tabs) }
                if case .selectTab(let tabs, _) = command { chosenByFlowd.insert(tabs) }
            }
        }
        return state.withLock { state in
            if case .rebuild = update {
                state.selections = [:]
            }
            for tabs in chosenByFlowd {
                state.selections[tabs] = nil
            }
            state.shown = applying(state.selections, to: update.screens)
            return state.shown
        }
    }

    private func applying(_ selections: [PresentableID: Int], to screens: ScreenTree) -> ScreenTree {
        var shown = screens
        for (tabs, index) in selections {
            _ = try? shown.apply(.selectTab(tabs, index: index), for: presenter)
        }
        return shown
    }

    private func draw(_ title: String, _ shown: ScreenTree) {
        var lines = ["── \(title)"] + renderer.render(shown)
        if keys {
            let menu = DemoMenu(shown, presenter: presenter)
            state.withLock { $0.menu = menu }
            lines.append(menu.line)
        }
        write((redraws ? "\u{1B}[2J\u{1B}[H" : "") + lines.joined(separator: "\n") + "\n")
    }

    /// Carries out one input line (or key); returns `false` to quit.
    private func handle(_ line: String, _ client: PresenterClient) async -> Bool {
        let input: PresenterInput
        if keys {
            guard let key = line.first, line.count == 1 else { return true }
            guard let entry = state.withLock({ $0.menu })?.entry(for: key) else {
                write("? no key \(key) on this screen\n")
                return true
            }
            switch entry.action {
            case .tap(let screen, let step): input = .tap(screen: screen, step: step)
            case .back(let screen): input = .dismiss(screen: screen)
            case .nextTab: input = .select(tab: nil)
            case .quit: input = .quit
            }
        } else {
            do {
                input = try PresenterInput(parsing: line)
            } catch {
                write("? \(error)\n")
                return true
            }
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
            let before = client.screens
            try? client.report(.dismissed, [id])
            write("dismiss \(screen): reported\n")
            // The user's own navigation: drawn at once (flowd sends no commands for it).
            var after = before
            _ = try? after.apply(.dismiss(id), for: presenter)
            let shown = state.withLock { state in
                state.shown = applying(state.selections, to: after)
                return state.shown
            }
            draw("you went back from \(screen)", shown)
        case .select(let tab):
            select(tab, client)
        }
        return true
    }

    /// Switches tabs as the user asked, redraws, and reports what became visible and hidden.
    private func select(_ tab: String?, _ client: PresenterClient) {
        let screens = client.screens
        let outcome = state.withLock { state -> (String, ScreenTree)? in
            let shown = applying(state.selections, to: screens)
            let visible = Set(shown.visiblePresentables(of: presenter))
            for container in shown.nodes.values.sorted(by: { $0.id < $1.id })
            where visible.contains(container.id) && container.items.count > 1 && container.selectedTab != nil {
                let current = container.selectedTab ?? 0
                let index: Int?
                if let tab {
                    index = container.items.firstIndex { item in
                        let description = shown[item]?.description
                        return description?.name == tab || description?.parameters["title"] == .string(tab)
                    }
                } else {
                    index = (current + 1) % container.items.count
                }
                guard let index else { continue }
                state.selections[container.id] = index
                let chosen = applying(state.selections, to: screens)
                state.shown = chosen
                let name = shown[container.items[index]].map(renderer.tabTitle) ?? "\(index)"
                return ("you selected the tab \(name)", chosen)
            }
            return nil
        }
        guard let (title, shown) = outcome else {
            write("select \(tab ?? ""): no such tab on screen\n")
            return
        }
        try? client.reportVisibility(of: shown)
        draw(title, shown)
    }
}

extension ScreenTree {
    /// The most recently placed presentable with this name.
    func lastPresentable(named name: String) -> PresentableID? {
        nodes.values.filter { $0.description.name == name }.map(\.id).max()
    }
}
