import ArgumentParser
import FlowBus
import FlowDemo
import Foundation

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
        let presenter = TerminalPresenter(presenter: name, redraws: redraws) { text in
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        await presenter.run(client, input: standardInputLines())
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
