import ArgumentParser
import FlowBus
import FlowDemo
import Foundation
import Synchronization

/// `flowdemo presenter`: the terminal presenter.
struct Presenter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw the session's screens in the terminal and take taps from standard input.",
        discussion: """
            Each navigation flowd sends is drawn; what is visible is reported back. Lines on standard input tap \
            screens: `tap WishlistTable movieIsPicked withId=7`, `dismiss MovieDetail`, `quit`.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "The presenter's name in the session.")
    var name = "main"

    @Flag(help: "Print each frame after the last instead of redrawing the terminal.")
    var plain = false

    @Flag(help: "Show a menu of keys under each frame and read single keys (a person clicking through the app).")
    var keys = false

    @Flag(help: "Quit at the end of standard input (when a program drives it).")
    var quitAtEOF = false

    func run() async throws {
        let client: PresenterClient
        do {
            client = try await PresenterClient.connect(
                session: connection.session,
                name: name,
                options: connection.clientOptions
            )
        } catch {
            FileHandle.standardError.write(Data("flowdemo presenter: \(error)\n".utf8))
            throw ExitCode(69)
        }
        let redraws = !plain && isatty(STDOUT_FILENO) == 1
        let presenter = TerminalPresenter(presenter: name, redraws: redraws, keys: keys) { text in
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        let input = keys ? standardInputKeys() : standardInputLines()
        await presenter.run(client, input: quitAtEOF ? input.endingWith(keys ? "q" : "quit") : input)
    }
}

extension AsyncStream where Element == String {
    /// The same elements, then `last`.
    func endingWith(_ last: String) -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        Task {
            for await element in self {
                continuation.yield(element)
            }
            continuation.yield(last)
            continuation.finish()
        }
        return stream
    }
}

/// The keys typed on standard input, one at a time: on a terminal it is put in raw mode (no echo, no Enter
/// needed) until the process ends; otherwise each character of the input is a key.
func standardInputKeys() -> AsyncStream<String> {
    let (keys, continuation) = AsyncStream.makeStream(of: String.self)
    if isatty(STDIN_FILENO) == 1 {
        // Started by another program (`flowdemo run --interactive`), the presenter may be in a process group of
        // its own: it takes the terminal's foreground, or reading keys would fail.
        signal(SIGTTOU, SIG_IGN)
        tcsetpgrp(STDIN_FILENO, getpgrp())
        var original = termios()
        tcgetattr(STDIN_FILENO, &original)
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        TerminalMode.original.withLock { $0 = original }
        atexit { TerminalMode.restore() }
    }
    Thread {
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count < 0 && errno == EINTR {
                continue
            }
            guard count == 1 else { break }
            let character = Character(Unicode.Scalar(byte))
            if !character.isNewline && character != " " {
                continuation.yield(String(character))
            }
        }
        continuation.finish()
    }.start()
    return keys
}

/// The terminal's settings before raw mode, restored at exit.
enum TerminalMode {
    static let original = Mutex<termios?>(nil)

    static func restore() {
        if var settings = original.withLock({ $0 }) {
            tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        }
    }
}

/// The lines of standard input, read on a thread of their own; the stream ends at end of file.
func standardInputLines() -> AsyncStream<String> {
    let (lines, continuation) = AsyncStream.makeStream(of: String.self)
    Thread {
        while let line = readLine() {
            continuation.yield(line)
        }
        continuation.finish()
    }.start()
    return lines
}
