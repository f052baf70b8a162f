import FlowCore

/// A line a person (or the demo's journey) types to a terminal presenter.
public enum PresenterInput: Sendable, Hashable {
    /// Emit `step` as the screen named `screen` (the last one on screen with that name): a tap on it.
    case tap(screen: String, step: Step)
    /// The user went back from the top screen of a stack, or closed a modal: report it dismissed.
    case dismiss(screen: String)
    /// Quit the presenter.
    case quit

    /// Reads `tap SCREEN STEP [key=value...]`, `dismiss SCREEN` or `quit`. Values are numbers, `true`/`false`,
    /// or text.
    /// - Throws: a message saying what a line must look like.
    public init(parsing line: String) throws(PresenterInputError) {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        switch words.first {
        case "tap":
            guard words.count >= 3 else {
                throw PresenterInputError("tap needs a screen and a step: tap WishlistTable movieIsPicked withId=7")
            }
            var parameters: JSONObject = [:]
            for pair in words.dropFirst(3) {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty else {
                    throw PresenterInputError("'\(pair)' is not key=value")
                }
                parameters[parts[0]] = Self.value(parts[1])
            }
            self = .tap(screen: words[1], step: Step(words[2], parameters))
        case "dismiss":
            guard words.count == 2 else {
                throw PresenterInputError("dismiss needs a screen: dismiss MovieDetail")
            }
            self = .dismiss(screen: words[1])
        case "quit":
            self = .quit
        default:
            throw PresenterInputError(
                "unknown command '\(line)'; use tap SCREEN STEP [key=value...], dismiss SCREEN, quit"
            )
        }
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
