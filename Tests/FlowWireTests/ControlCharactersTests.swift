import FlowWire
import Testing

/// Control characters in text from the bus are found whatever else the text holds: tried with printable ASCII,
/// each kind (C0, DEL, C1) at the start, the middle and the end, and text beyond ASCII with none.
@Suite struct ControlCharactersTests {
    @Test func theFirstControlCharacterIsFound() {
        #expect(ControlCharacters.first(in: "") == nil)
        #expect(ControlCharacters.first(in: "kiosk-1/app_2 ~!") == nil)
        #expect(ControlCharacters.first(in: "café ⌘ 😀") == nil)
        #expect(ControlCharacters.first(in: "\u{1b}[2J") == "\u{1b}")
        #expect(ControlCharacters.first(in: "line\nbreak") == "\n")
        #expect(ControlCharacters.first(in: "end\u{7f}") == "\u{7f}")
        #expect(ControlCharacters.first(in: "é\u{85}x") == "\u{85}")
        #expect(ControlCharacters.first(in: "\u{9f}") == "\u{9f}")
        #expect(ControlCharacters.first(in: "\u{a0}") == nil)
        #expect(ControlCharacters.first(in: "tab\there\u{1b}") == "\t")
    }
}
