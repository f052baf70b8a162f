import FlowCore
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import FlowWebInspector

/// The pages connected to the feed, on channels of their own (no socket): what a page gets when it connects (the
/// hello, what was kept, the last events up to the history), a page that does not read missing batches and then told
/// how many, and bad requests answered with an error.
@Suite struct FeedHubTests {
    func messages(on channel: EmbeddedChannel) throws -> [JSONObject] {
        var found: [JSONObject] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) {
            let text = Array(buffer: frame.unmaskedData)
            found.append(try #require(try JSONValue(parsing: text).objectValue))
        }
        return found
    }

    func events(_ range: ClosedRange<Int>) -> [JSONValue] {
        range.map { ["seq": .int($0), "session": "s", "kind": "stepFate", "at": 0, "fields": [:]] }
    }

    @Test func aPageThatConnectsGetsTheHelloWhatWasKeptAndTheLastEventsUpToTheHistory() throws {
        let hub = FeedHub(hello: ["type": "hello", "history": 3], history: 3)
        hub.broadcast(["type": "status", "connected": true], keep: true)
        hub.broadcast(["type": "status", "connected": false], keep: true)
        hub.broadcastEvents(events(1...2))
        hub.broadcastEvents(events(3...5))
        let channel = EmbeddedChannel()
        _ = hub.connected(channel)
        let got = try messages(on: channel)
        #expect(got.map { $0["type"]?.stringValue } == ["hello", "status", "events"])
        #expect(got[1]["connected"] == false, "the latest status only")
        let seqs = got[2]["events"]?.arrayValue?.compactMap { $0.objectValue?["seq"]?.intValue }
        #expect(seqs == [3, 4, 5], "the last batch holds the history: the one before is let go")
        // A batch short of the history keeps the one before it: the page gets at least its history when there is.
        hub.broadcastEvents(events(6...6))
        let later = EmbeddedChannel()
        _ = hub.connected(later)
        let batches = try messages(on: later).filter { $0["type"] == "events" }
        #expect(batches.map { $0["events"]?.arrayValue?.count } == [3, 1])
    }

    @Test func aPageThatDoesNotReadMissesBatchesAndIsToldHowMany() throws {
        let hub = FeedHub(hello: ["type": "hello"], history: 100)
        let channel = EmbeddedChannel()
        _ = hub.connected(channel)
        _ = try messages(on: channel)
        channel.isWritable = false
        hub.broadcastEvents(events(1...4))
        hub.broadcastEvents(events(5...6))
        #expect(try messages(on: channel).isEmpty, "nothing is queued for a page whose buffer is full")
        channel.isWritable = true
        hub.broadcastEvents(events(7...7))
        let got = try messages(on: channel)
        #expect(got.map { $0["type"]?.stringValue } == ["skipped", "events"])
        #expect(got.first?["count"] == 6)
    }

    @Test func badRequestsAreAnsweredWithAnErrorAndGoodOnesReachTheRequests() async throws {
        let hub = FeedHub(hello: ["type": "hello"], history: 10)
        let channel = EmbeddedChannel()
        let page = hub.connected(channel)
        _ = try messages(on: channel)
        // Tried: text that is not JSON, JSON that is not an object with a type, an unknown type, a recording without
        // its text, trees asked without an event's number.
        for bad in [
            "not json", "[1]", #"{"kind":"select"}"#, #"{"type":"explode"}"#, #"{"type":"openRecording"}"#,
            #"{"type":"treesAround","session":"kiosk"}"#,
        ] {
            hub.received(Array(bad.utf8), from: page)
            #expect(try messages(on: channel).first?["type"] == "error", "\(bad)")
        }
        hub.received(Array(#"{"type":"select","session":"kiosk"}"#.utf8), from: page)
        #expect(hub.selectedSessions == ["kiosk"])
        hub.received(Array(#"{"type":"treesAround","session":"kiosk","seq":12}"#.utf8), from: page)
        hub.finish()
        var requests: [String] = []
        for await request in hub.requests {
            switch request {
            case .connected: requests.append("connected")
            case .select(_, let session): requests.append("select \(session ?? "-")")
            case .openRecording: requests.append("openRecording")
            case .treesAround(_, let session, let seq): requests.append("treesAround \(session) #\(seq)")
            }
        }
        #expect(requests == ["connected", "select kiosk", "treesAround kiosk #12"])
        hub.disconnected(page)
        #expect(!hub.hasPages)
    }
}
