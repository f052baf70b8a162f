import FlowCore
import FlowSpec

/// A journey: what a user (and the processes around them) do in a new session, and what they must see after each
/// thing — a test of a flow file, run in process against the engine or against a live flowd (`flowctl test`).
///
/// ```yaml
/// journey: picks a movie from the wishlist
/// flows: ../flows/movies.yaml        # the flow file, relative to the journey (`flowctl test --flows` overrides)
/// do:
///   - step: onboardingIsComplete
///     from: { stepper: app }
///     expect: { fate: accepted, visible: [app, dashboard, wishlist, WishlistTable] }
///   - step: movieIsPicked
///     parameters: { withId: 7 }
///     from: { screen: WishlistTable }
///     expect: { visible: [app, dashboard, wishlist, MovieDetail] }
///   - dismiss: MovieDetail
///     expect: { visible: [app, dashboard, wishlist, WishlistTable] }
/// ```
///
/// Each entry is one input — `step` (with `parameters` and `from`: a stepper, or a screen by name and
/// `occurrence`), `deepLink` (a step, with `parameters`), `dismiss` or `selectTab` (a screen by name: the user's
/// gesture), `guard` (`true` or `false`: the answer to the question that waits), `sessionData` (`{key, value}`) —
/// and what to expect after it: the step's `fate` (`accepted`, `dropped`, or a drop reason), the `visible` screens
/// (what a user sees, in order), every screen on `screens` (in order, window roots first), the running `flows`.
/// After each input the presenters report what they show, as they do.
public struct Journey: Sendable, Hashable {
    /// What the journey is about.
    public var name: String
    /// The journey file, and the flow file it names (relative to it), if it names one.
    public var file: String
    public var flows: String?
    /// What happens, in order.
    public var moves: [Move]

    /// One input and what to expect after it.
    public struct Move: Sendable, Hashable {
        public var input: ExplorationInput
        public var expect: Expectation
        /// Where it is written.
        public var line: Int

        public init(_ input: ExplorationInput, expect: Expectation = Expectation(), line: Int = 0) {
            self.input = input
            self.expect = expect
            self.line = line
        }
    }

    /// What must hold after an input; what is not given is not checked.
    public struct Expectation: Sendable, Hashable {
        /// `accepted`, `dropped`, or a drop reason (`notVisible`, `unhandled`, `invalidParameters`...), or
        /// `unknownStep` for a step the flow file does not declare.
        public var fate: String?
        /// The screens a user sees, by name, in order.
        public var visible: [String]?
        /// Every screen on screen, by name, window roots first and each followed by what it holds.
        public var screens: [String]?
        /// The running flows, by name, parents first.
        public var flows: [String]?

        public init(fate: String? = nil, visible: [String]? = nil, screens: [String]? = nil, flows: [String]? = nil) {
            self.fate = fate
            self.visible = visible
            self.screens = screens
            self.flows = flows
        }

        public var isEmpty: Bool {
            fate == nil && visible == nil && screens == nil && flows == nil
        }
    }

    public init(name: String, file: String, flows: String? = nil, moves: [Move]) {
        self.name = name
        self.file = file
        self.flows = flows
        self.moves = moves
    }
}

/// What a session shows, as a journey names it.
public struct SessionView: Sendable, Hashable {
    public var visible: [String]
    public var screens: [String]
    public var flows: [String]

    /// What `inspection` shows.
    public init(_ inspection: SessionInspection) {
        let tree = inspection.screens
        let presenters = tree.windowRoots.keys.sorted()
        visible = presenters.flatMap { tree.visiblePresentables(of: $0) }.compactMap { tree[$0]?.description.name }
        screens = presenters.flatMap { tree.presentables(of: $0) }.compactMap { tree[$0]?.description.name }
        flows = inspection.flows.map(\.name)
    }

    public init(visible: [String], screens: [String], flows: [String]) {
        self.visible = visible
        self.screens = screens
        self.flows = flows
    }
}

/// Where a journey first differs from what happened.
public struct JourneyFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The journey file and the line of the move.
    public let file: String
    public let line: Int
    /// Which move (from 1), and what it was.
    public let move: Int
    public let input: String
    /// What was expected and what came, line by line (`-` expected, `+` seen).
    public let diff: [String]

    /// Creates a failure.
    public init(file: String, line: Int, move: Int, input: String, diff: [String]) {
        self.file = file
        self.line = line
        self.move = move
        self.input = input
        self.diff = diff
    }

    public var description: String {
        "\(file):\(line): move \(move) (\(input)) differs:\n" + diff.map { "  \($0)" }.joined(separator: "\n")
    }
}

extension Journey.Expectation {
    /// The differences from what came: a `-` line for what was expected and a `+` line for what was seen, for each
    /// expectation that does not hold. Empty when all hold.
    public func differences(fate seen: String?, view: SessionView) -> [String] {
        var diff: [String] = []
        if let fate, let seen, !Self.fate(seen, matches: fate) {
            diff += ["- fate: \(fate)", "+ fate: \(seen)"]
        } else if let fate, seen == nil {
            diff += [
                "- fate: \(fate)",
                "+ fate: (none yet: not a step, or it waits for a guard or for the session to be ready)",
            ]
        }
        for (name, expected, actual) in [
            ("visible", visible, view.visible), ("screens", screens, view.screens), ("flows", flows, view.flows),
        ] {
            if let expected, expected != actual {
                diff += [
                    "- \(name): [\(expected.joined(separator: ", "))]",
                    "+ \(name): [\(actual.joined(separator: ", "))]",
                ]
            }
        }
        return diff
    }

    /// `accepted` or `dropped` match any fate of that kind; a reason matches that reason.
    static func fate(_ seen: String, matches expected: String) -> Bool {
        expected == seen || (expected == "dropped" && seen != "accepted")
    }
}
