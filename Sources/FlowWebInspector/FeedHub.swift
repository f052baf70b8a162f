import FlowCore
import FlowWire
import NIOCore
import NIOWebSocket
import Synchronization

/// The pages connected to the feed: what flowctl sends them, and what they ask. A page that connects (or reloads)
/// gets the last events sent, up to the history the pages keep. A page that does not read fast
/// enough (its connection's buffer is full) is left out of the events until it has read, and then told how many
/// it missed (`skipped`): flowctl never holds more for it than its connection's buffer.
public final class FeedHub: Sendable {
    /// What a page asked.
    public enum Request: Sendable {
        /// A page connected: it was sent the hello and the latest status, sessions and flows.
        case connected(page: Int)
        /// A page looks at `session` (nil: none): its trees are sent to it.
        case select(page: Int, session: String?)
        /// A page opened a recording file: its name and text.
        case openRecording(page: Int, name: String, text: String)
        /// A page wants the trees just before and just after event `seq` of `session` (it showed the event).
        case treesAround(page: Int, session: String, seq: Int)
    }

    private struct Page {
        let channel: any Channel
        var selected: String?
        var skipped = 0
    }

    private struct State {
        var pages: [Int: Page] = [:]
        var nextPage = 1
        /// Sent to a page when it connects: the hello, then the latest of each of these.
        var hello: JSONValue = [:]
        var latest: [String: JSONValue] = [:]
        /// The last batches of events sent, as sent (their text, and how many events each holds): the fewest newest
        /// that hold ``FeedHub/historyLimit`` events. A page that connects (or reloads) gets them as they are: nothing
        /// is encoded again on the page server's event loop.
        var recent: [(text: [UInt8], count: Int)] = []
        var recentCount = 0
    }

    private let state = Mutex(State())
    /// What the pages ask, in order; read by one task.
    public let requests: AsyncStream<Request>
    private let continuation: AsyncStream<Request>.Continuation

    /// How many of the last events a page gets when it connects.
    public let historyLimit: Int

    /// A hub with no page; `hello` is the first message every page gets, then the last `history` events.
    public init(hello: JSONValue, history: Int) {
        (requests, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1024))
        historyLimit = history
        state.withLock { $0.hello = hello }
    }

    /// The sessions the pages look at now.
    public var selectedSessions: Set<String> {
        state.withLock { Set($0.pages.values.compactMap(\.selected)) }
    }

    /// Whether any page is connected.
    public var hasPages: Bool {
        state.withLock { !$0.pages.isEmpty }
    }

    /// Sends `message` to every page, and keeps it for pages that connect later when `keep` (the latest status,
    /// sessions list and flows: a message of the same `type` replaces the one kept).
    public func broadcast(_ message: JSONValue, keep: Bool = false) {
        let text = message.jsonText()
        let channels = state.withLock { state in
            if keep, let type = message.objectValue?["type"]?.stringValue {
                state.latest[type] = message
            }
            return state.pages.values.map(\.channel)
        }
        for channel in channels {
            Self.send(text, on: channel)
        }
    }

    /// Sends a batch of events to every page that keeps up; a page whose connection is full misses it, and is told
    /// how many events it missed with the next batch it gets.
    public func broadcastEvents(_ events: [JSONValue]) {
        guard !events.isEmpty else { return }
        let text = (["type": "events", "events": .array(events)] as JSONValue).jsonText()
        let ready: [(any Channel, Int)] = state.withLock { state in
            state.recent.append((text, events.count))
            state.recentCount += events.count
            while let oldest = state.recent.first, state.recentCount - oldest.count >= historyLimit {
                state.recent.removeFirst()
                state.recentCount -= oldest.count
            }
            var ready: [(any Channel, Int)] = []
            for (id, page) in state.pages {
                if page.channel.isWritable {
                    ready.append((page.channel, page.skipped))
                    state.pages[id]?.skipped = 0
                } else {
                    state.pages[id]?.skipped += events.count
                }
            }
            return ready
        }
        for (channel, skipped) in ready {
            if skipped > 0 {
                Self.send((["type": "skipped", "count": .int(skipped)] as JSONValue).jsonText(), on: channel)
            }
            Self.send(text, on: channel)
        }
    }

    /// Sends `message` to the pages that look at `session`.
    public func send(_ message: JSONValue, toPagesWatching session: String) {
        let text = message.jsonText()
        let channels = state.withLock { $0.pages.values.filter { $0.selected == session }.map(\.channel) }
        for channel in channels {
            Self.send(text, on: channel)
        }
    }

    /// Sends `message` to one page.
    public func send(_ message: JSONValue, to page: Int) {
        guard let channel = state.withLock({ $0.pages[page]?.channel }) else { return }
        Self.send(message.jsonText(), on: channel)
    }

    /// A page connected on `channel`: it gets the hello, what was kept, and the last batches of events.
    func connected(_ channel: any Channel) -> Int {
        let (id, first) = state.withLock { state in
            let id = state.nextPage
            state.nextPage += 1
            state.pages[id] = Page(channel: channel)
            let kept = ([state.hello] + ["status", "flows", "sessions"].compactMap { state.latest[$0] }).map {
                $0.jsonText()
            }
            return (id, kept + state.recent.map(\.text))
        }
        for text in first {
            Self.send(text, on: channel)
        }
        continuation.yield(.connected(page: id))
        return id
    }

    /// A page's connection closed.
    func disconnected(_ page: Int) {
        state.withLock { _ = $0.pages.removeValue(forKey: page) }
    }

    /// A page sent `text`: a request, or an error back to it.
    func received(_ text: [UInt8], from page: Int) {
        guard let message = try? JSONValue(parsing: text), let object = message.objectValue,
            let type = object["type"]?.stringValue
        else {
            send(["type": "error", "message": "flowctl web reads JSON objects with a type from the page"], to: page)
            return
        }
        switch type {
        case "select":
            let session = object["session"]?.stringValue
            state.withLock { $0.pages[page]?.selected = session }
            continuation.yield(.select(page: page, session: session))
        case "openRecording":
            guard let text = object["text"]?.stringValue else {
                send(["type": "error", "message": "openRecording carries the file's text"], to: page)
                return
            }
            let name = object["name"]?.stringValue ?? "recording"
            continuation.yield(.openRecording(page: page, name: name, text: text))
        case "treesAround":
            guard let session = object["session"]?.stringValue, let seq = object["seq"]?.intValue else {
                send(["type": "error", "message": "treesAround carries a session and an event's seq"], to: page)
                return
            }
            continuation.yield(.treesAround(page: page, session: session, seq: seq))
        default:
            send(["type": "error", "message": .string("flowctl web does not know '\(type.prefix(64))'")], to: page)
        }
    }

    /// Ends the requests stream.
    public func finish() {
        continuation.finish()
    }

    private static func send(_ text: [UInt8], on channel: any Channel) {
        let frame = WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(bytes: text))
        channel.writeAndFlush(frame, promise: nil)
    }
}
