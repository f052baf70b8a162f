import FlowCore
import FlowInspector
import Testing

/// What flowctl prints of a peer's text cannot drive the operator's terminal: escape sequences, bells and newlines
/// are shown escaped. Bad input tried: a session with a colour sequence, a name that retitles and clears the
/// terminal and forges a line.
@Suite struct TerminalTextTests {
    @Test func controlCharactersAreShownEscaped() {
        #expect(TerminalText.safe("kiosk-7") == "kiosk-7")
        #expect(TerminalText.safe("evil\u{1B}[31m") == "evil\\u{1b}[31m")
        #expect(TerminalText.safe("a\u{1B}]0;PWNED\u{07}\nFAKE") == "a\\u{1b}]0;PWNED\\u{7}\\nFAKE")
        #expect(TerminalText.safe("\u{9B}2J") == "\\u{9b}2J")
        #expect(TerminalText.safe("Wishlist — ünïcode ✓") == "Wishlist — ünïcode ✓")
    }

    @Test func aWatchedLineHoldsNoEscapeFromThePeer() {
        let item = WatchedItem(
            kind: "registered",
            session: "evil\u{1B}[31m",
            sentAt: 0,
            fields: ["peer": "p\u{1B}]0;PWNED\u{07}", "name": "n\nFAKE line", "role": "stepper"]
        )
        let line = WatchFormatter(colored: false, clock: .none).line(item, names: WatchNames())
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(line)")
        #expect(line.contains("evil\\u{1b}[31m"), "\(line)")
    }
}
