/// Rows of text in columns as wide as their widest cell, fitted to the terminal: when the table is wider, the
/// columns that may be shortened lose width (their cells ending in `…`), the widest first (of equals, the
/// rightmost), down to 8 characters.
/// Cells are made safe for the terminal first (``TerminalText``).
public struct TextTable: Sendable {
    /// The column titles.
    public var headers: [String]
    /// The rows, each with a cell per column.
    public var rows: [[String]]
    /// The columns that may be shortened (ids, names); the others keep their width.
    public var shrinkable: Set<Int>

    /// A table with these titles, rows and shortenable columns.
    public init(headers: [String], rows: [[String]], shrinkable: Set<Int>) {
        self.headers = headers
        self.rows = rows
        self.shrinkable = shrinkable
    }

    /// The table's lines, fitted to `width` characters when given (a terminal), else whole (a pipe wants every
    /// character).
    public func lines(width: Int?) -> [String] {
        let cells = ([headers] + rows).map { row in row.map(TerminalText.safe) }
        var widths = headers.indices.map { column in
            cells.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        if let width {
            var over = widths.reduce(0, +) + 2 * (widths.count - 1) - width
            // Of columns equally wide, the rightmost loses first (a set's order differs from run to run).
            let candidates = shrinkable.filter { widths.indices.contains($0) }.sorted(by: >)
            while over > 0 {
                guard let widest = candidates.filter({ widths[$0] > 8 }).max(by: { widths[$0] < widths[$1] })
                else { break }
                widths[widest] -= 1
                over -= 1
            }
        }
        return cells.map { row in
            row.enumerated().map { column, cell in
                let fitted = cell.count > widths[column] ? String(cell.prefix(max(widths[column] - 1, 0))) + "…" : cell
                let last = column == row.count - 1
                return last ? fitted : fitted + String(repeating: " ", count: widths[column] - fitted.count)
            }.joined(separator: "  ")
        }
    }
}
