import Dispatch
import Foundation

/// Waits for Ctrl-C or SIGTERM, for a command that runs until it is stopped and then stops cleanly (exit 0).
enum SignalWait {
    /// Returns when SIGINT or SIGTERM comes.
    static func interrupt() async {
        let (signals, continuation) = AsyncStream<Int32>.makeStream()
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        for await _ in signals {
            break
        }
        for source in sources {
            source.cancel()
        }
    }
}
