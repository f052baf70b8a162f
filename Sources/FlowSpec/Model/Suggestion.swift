import Foundation

/// What a mistyped name was probably meant to be: the nearest of the names there are, by edit distance (letter
/// case aside), when it is near enough to be a typo — at most two edits, or a third of the word's length for a
/// longer one. flow files, flowd's run-time refusals and both command lines suggest with it.
public enum Suggestion {
    /// The candidate nearest to `word`, when it is near enough to be a likely typo.
    public static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let typed = Array(word.lowercased())
        let limit = max(2, typed.count / 3)
        var best: (name: String, distance: Int)?
        // A distance is at least the difference of the lengths: most candidates are ruled out without a table (flowd
        // suggests on its loop, for any step a peer names).
        for candidate in candidates where abs(candidate.count - typed.count) <= limit {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            if distance <= limit, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.name
    }

    /// ` (did you mean 'NAME'?)` for the nearest candidate, or nothing when none is near.
    public static func didYouMean(_ word: String, in candidates: some Sequence<String>) -> String {
        closest(to: word, in: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// What to say when a command line's first word is not one of the program's subcommands (`flowctl watc`,
    /// `flowd chek flows.yaml`): the word, the nearest subcommand, and the way to the list; `nil` when the first
    /// argument is an option or a subcommand (or `help`).
    public static func unknownSubcommand(
        in arguments: [String],
        of program: String,
        subcommands: [String]
    ) -> String? {
        guard let word = arguments.first, !word.hasPrefix("-"), word != "help", !subcommands.contains(word) else {
            return nil
        }
        let hint = closest(to: word, in: subcommands).map { "did you mean '\($0)'? " } ?? ""
        return "\(program): '\(word)' is not a subcommand; \(hint)`\(program) --help` lists them"
    }

    /// Stops the process with exit code 64 and ``unknownSubcommand(in:of:subcommands:)``'s words on standard error
    /// when the command line's first word is no subcommand; returns otherwise. A command line program calls it first.
    public static func exitOnUnknownSubcommand(
        of program: String,
        subcommands: [String],
        arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) {
        guard let problem = unknownSubcommand(in: arguments, of: program, subcommands: subcommands) else { return }
        FileHandle.standardError.write(Data((problem + "\n").utf8))
        exit(64)
    }

    /// Levenshtein's distance: the fewest insertions, deletions and replacements that make `a` into `b`.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = Array(repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
