import Foundation

/// The width of the terminal flowctl writes to.
enum TerminalSize {
    /// The terminal's columns when standard output is one (its size, else `$COLUMNS`); `nil` for a pipe or a file,
    /// which want every character.
    static var columns: Int? {
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
    }
}
