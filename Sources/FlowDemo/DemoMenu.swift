import FlowBus

/// What a person can do on the demo's screens, and the keys for it: the buttons of RxFlow's movie app (a movie
/// in a list, a cast member, settings' entries), going back, switching tabs, quitting.
public struct DemoMenu: Sendable, Hashable {
    /// One thing to do.
    public enum Action: Sendable, Hashable {
        /// Emit a step as a screen: a tap on one of its buttons.
        case tap(screen: String, step: Step)
        /// Go back: the top stack item or modal is dismissed.
        case back(screen: String)
        /// Show the next tab of a tab container.
        case nextTab
        /// Quit the presenter.
        case quit
    }

    /// A key, what it is labelled on screen, and what it does.
    public struct Entry: Sendable, Hashable {
        public var key: Character
        public var label: String
        public var action: Action
    }

    /// The entries, in the order shown.
    public var entries: [Entry]

    /// The buttons of each screen of the movie app: a label and the step its tap emits.
    static let buttons: [String: [(String, Step)]] = [
        "OnboardingIntro": [("continue", Step("introIsComplete"))],
        "OnboardingApiKey": [("save the API key", Step("apiKeyIsFilledIn"))],
        "WishlistTable": [
            ("Up", Step("movieIsPicked", ["withId": 14160])),
            ("Interstellar", Step("movieIsPicked", ["withId": 157336])),
            ("settings", Step("settingsAreRequired")),
        ],
        "WatchedCollection": [("Amélie", Step("movieIsPicked", ["withId": 194]))],
        "MovieDetail": [("cast: Ed Asner", Step("castIsPicked", ["withId": 3]))],
        "SettingsList": [
            ("login", Step("loginIsRequired")),
            ("API key", Step("apiKeyIsRequired")),
            ("about", Step("aboutIsRequired")),
            ("done", Step("settingsAreComplete")),
        ],
    ]

    /// The menu for what `presenter` shows in `screens`: the buttons of every visible screen, numbered, then
    /// back (when something can be dismissed), next tab (when tabs are visible) and quit.
    public init(_ screens: ScreenTree, presenter: PresenterID) {
        let visible = screens.visiblePresentables(of: presenter).compactMap { screens[$0] }
        var entries: [Entry] = []
        for node in visible {
            for (label, step) in Self.buttons[node.description.name] ?? [] where entries.count < 9 {
                let key = Character(String(entries.count + 1))
                entries.append(Entry(key: key, label: label, action: .tap(screen: node.description.name, step: step)))
            }
        }
        if let top = visible.last(where: { Self.canGoBack(from: $0, in: screens) }) {
            entries.append(Entry(key: "b", label: "back", action: .back(screen: top.description.name)))
        }
        if visible.contains(where: { $0.items.count > 1 && $0.selectedTab != nil }) {
            entries.append(Entry(key: "t", label: "next tab", action: .nextTab))
        }
        entries.append(Entry(key: "q", label: "quit", action: .quit))
        self.entries = entries
    }

    /// The entry for a key, if any.
    public func entry(for key: Character) -> Entry? {
        entries.first { $0.key == key }
    }

    /// The menu as one line: `keys: 1 Up · 2 Interstellar · b back · q quit`.
    public var line: String {
        "keys: " + entries.map { "\($0.key) \($0.label)" }.joined(separator: " · ")
    }

    /// Whether a person can go back from a screen: a modal screen (not a modal flow's container), or a stack item
    /// above the stack's first.
    private static func canGoBack(from node: ScreenNode, in screens: ScreenTree) -> Bool {
        switch node.placement {
        case .modal: node.description.style == .screen  // An alert; a modal flow closes itself.
        case .stackItem: node.parent.flatMap { screens[$0]?.items.first } != node.id
        default: false
        }
    }
}
