import FlowInspector
import Testing

/// `flowctl list`'s columns: as wide as their widest cell, fitted to the terminal by shortening the ids and names.
@Suite struct TextTableTests {
    let table = TextTable(
        headers: ["ID", "ROLE", "NAME"],
        rows: [
            ["kiosk-7/a-very-long-stepper-id", "stepper", "app"], ["k/m", "presenter", "main-window-of-the-kiosk"],
        ],
        shrinkable: [0, 2]
    )

    @Test func columnsAreAsWideAsTheirWidestCellAndWholeWhenPiped() {
        #expect(
            table.lines(width: nil) == [
                "ID                              ROLE       NAME",
                "kiosk-7/a-very-long-stepper-id  stepper    app",
                "k/m                             presenter  main-window-of-the-kiosk",
            ]
        )
    }

    /// Tried: a terminal narrower than the table, one narrower than the columns can shrink to, a peer's id with a
    /// control character.
    @Test func aNarrowTerminalShortensTheWidestShrinkableColumnsFirst() {
        let lines = table.lines(width: 50)
        #expect(lines.allSatisfy { $0.count <= 50 }, "\(lines)")
        #expect(lines[1].hasPrefix("kiosk-7/a-very-lon…  stepper"))
        #expect(lines[2].hasSuffix("…"))
        // The role column keeps its width; shrinking stops at 8 characters.
        let narrow = table.lines(width: 10)
        #expect(narrow[0].hasPrefix("ID        ROLE       NAME"))
        let escaped = TextTable(headers: ["ID"], rows: [["bad\u{1B}[2Jid"]], shrinkable: [0]).lines(width: nil)
        #expect(!escaped[1].contains("\u{1B}"))
    }
}
