import FlowCore

/// A line a person (or the demo's journey) types to a terminal presenter.
public enum PresenterInput: Sendable, Hashable {
    /// Emit `step` as the screen named `screen` (the last one on screen with that name): a tap on it.
    case tap(screen: String, step: Step)
    /// The user went back from the top screen of a stack, or closed a modal: report it dismissed.
    case dismiss(screen: String)
    /// The user switched to the tab named (or titled) `tab`; without a name, to the next tab.
    case select(tab: String?)
    /// Quit the presenter.
    case quit

    /// Reads `tap SCREEN STEP [key=value...]`, `dismiss SCREEN`, `select [TAB]` or `quit`. Values are numbers, `true`/`false`,
    /// or text.
    /// - Throws: a message saying what a line must look like.
    public init(parsing line: String) throws(PresenterInputError) {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        switch words.first {
        case "tap":
            guard words.count >= 3 else {
                throw PresenterInputError("tap needs a screen and a step: tap WishlistTable movieIsPicked withId=7")
            }
            self = .tap(screen: words[1], step: try Self.step(words[2...]))
        case "dismiss":
            guard words.count == 2 else {
                throw PresenterInputError("dismiss needs a screen: dismiss MovieDetail")
            }
            self = .dismiss(screen: words[1])
        case "select":
            guard words.count <= 2 else {
                throw PresenterInputError("select takes one tab: select Watched")
            }
            self = .select(tab: words.count == 2 ? words[1] : nil)
        case "quit":
            self = .quit
        default:
            throw PresenterInputError(
                "unknown command '\(line)'; use tap SCREEN STEP [key=value...], dismiss SCREEN, select [TAB], quit"
            )
        }
    }

    /// A step written `NAME key=value...`. Values are numbers, `true`/`false`, or text.
    /// - Throws: when a parameter is not `key=value`.
    public static func step(_ words: ArraySlice<String>) throws(PresenterInputError) -> Step {
        guard let name = words.first else {
            throw PresenterInputError("name the step")
        }
        var parameters: JSONObject = [:]
        for pair in words.dropFirst() {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw PresenterInputError("'\(pair)' is not key=value")
            }
            parameters[parts[0]] = value(parts[1])
        }
        return Step(name, parameters)
    }

    private static func value(_ text: String) -> JSONValue {
        if let number = Int(text) { return .int(number) }
        if let number = Double(text) { return .double(number) }
        if text == "true" || text == "false" { return .bool(text == "true") }
        return .string(text)
    }
}

/// A line that is not a presenter command.
public struct PresenterInputError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
