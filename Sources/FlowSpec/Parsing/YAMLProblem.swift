import Foundation

/// A YAML syntax error in FlowBus's own words: where the mistake most likely is (libyaml says where it noticed,
/// often lines later) and what to do about it. libyaml's own words follow, for a search engine.
struct YAMLProblem: Equatable {
    /// Where the mistake most likely is (1-based).
    let line: Int
    let column: Int
    /// What is wrong and what to do.
    let message: String

    /// libyaml's report: what it was parsing (`context`, from `contextLine`:`contextColumn`), the `problem`, where
    /// it noticed it, and the file's text.
    init(
        context: String?,
        contextLine: Int?,
        contextColumn: Int?,
        problem: String,
        line: Int,
        column: Int,
        text: String
    ) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let words = "(YAML: \([context, problem].compactMap { $0 }.joined(separator: " ")))"
        let opened = contextLine.map { " at line \($0)" } ?? ""
        var at = (line, column)
        let message: String
        switch problem {
        case _ where problem.contains("did not find expected ',' or '}'"):
            at = (contextLine ?? line, contextColumn ?? column)
            message = "this '{' is not closed: end its entries with '}', and separate them with ','"
        case _ where problem.contains("did not find expected ',' or ']'"):
            at = (contextLine ?? line, contextColumn ?? column)
            message = "this '[' is not closed: end its items with ']', and separate them with ','"
        case _ where problem.contains("tab character") || problem.contains("found character that cannot start"):
            let tab = lines.indices.contains(line - 1) && lines[line - 1].contains("\t")
            message =
                tab
                ? "a tab: YAML indents with spaces only; replace the tab with spaces"
                : "a character that cannot start a YAML value here ('@', '`', '%'...): put the value in quotes"
        case _ where problem.contains("unexpected end of stream") && (context ?? "").contains("quoted scalar"):
            at = (contextLine ?? line, contextColumn ?? column)
            message = "this quote is never closed: add the closing quote at the end of the value"
        case _ where problem.contains("could not find expected ':'"):
            at = (contextLine ?? line, contextColumn ?? column)
            message = "a key without ':' after it: write 'key: value', or quote the text if it is a value"
        case _ where problem.contains("mapping values are not allowed"),
            _ where problem.contains("did not find expected key"),
            _ where problem.contains("did not find expected '-' indicator"):
            if let misplaced = Self.lineOutdentedBefore(
                line,
                in: lines,
                needsBody: !problem.contains("mapping values")
            ) {
                at = (misplaced.line, misplaced.column)
                message =
                    "this line is indented less than the lines after it belong: they have no key to go under; indent it as the keys of its mapping (or the line after it less)"
            } else if problem.contains("'-' indicator") {
                message =
                    "this line is indented as an item of the list that begins\(opened), but is not one: start it with '- ', or indent it under the item it belongs to"
            } else if problem.contains("expected key") {
                message =
                    "this line is not indented as the keys of the mapping that begins\(opened): indent it as they are, with spaces"
            } else {
                message =
                    "a ':' where no 'key: value' may be: quote a value that holds ': ', or indent this line as the keys it belongs with"
            }
        default:
            message = "this is not valid YAML"
        }
        self.line = at.0
        self.column = at.1
        self.message = "\(message) \(words)"
    }

    /// The line that most likely ended a mapping too early (a key moved to the left): the nearest line before
    /// `line` indented less than it, when a line before that one was indented as `line` is (so that level existed,
    /// and that line closed it), and, when `needsBody`, lines come between it and `line`.
    private static func lineOutdentedBefore(
        _ line: Int,
        in lines: [String],
        needsBody: Bool
    ) -> (line: Int, column: Int)? {
        guard lines.indices.contains(line - 1) else { return nil }
        let indentation = { (index: Int) in lines[index].prefix { $0 == " " }.count }
        let meaningful = { (index: Int) -> Bool in
            let trimmed = lines[index].trimmingCharacters(in: .whitespacesAndNewlines)
            return !trimmed.isEmpty && !trimmed.hasPrefix("#")
        }
        let level = indentation(line - 1)
        guard let cut = (0..<(line - 1)).reversed().first(where: { meaningful($0) && indentation($0) < level }),
            (0..<cut).contains(where: { meaningful($0) && indentation($0) == level }),
            !needsBody || ((cut + 1)..<(line - 1)).contains(where: meaningful)
        else { return nil }
        return (cut + 1, indentation(cut) + 1)
    }
}
