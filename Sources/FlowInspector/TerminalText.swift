import FlowCore
import FlowWire

/// Text from the bus made safe for a terminal: control characters (C0, DEL, C1: escape sequences that could retitle,
/// clear or repaint an operator's terminal, or forge a line) are shown escaped, as `\n`, `\t` or `\u{1b}`. flowd
/// refuses them in identifiers; this covers what it passes on as given (a routing id in an error, a parameter).
public enum TerminalText {
    /// `text` with its control characters escaped.
    public static func safe(_ text: String) -> String {
        ControlCharacters.escaped(text)
    }

    /// Every string in `value`, keys included, made safe.
    public static func safe(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): .string(safe(text))
        case .array(let items): .array(items.map(safe))
        case .object(let members):
            .object(JSONObject(uniqueKeysWithValues: members.map { (safe($0.key), safe($0.value)) }))
        default: value
        }
    }
}

extension WatchedItem {
    /// The item with every string made safe for a terminal (``TerminalText``).
    public var terminalSafe: WatchedItem {
        WatchedItem(
            kind: TerminalText.safe(kind),
            session: session.map(TerminalText.safe),
            sentAt: sentAt,
            fields: TerminalText.safe(.object(fields)).objectValue ?? fields
        )
    }
}
