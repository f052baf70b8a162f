import FlowWire
import Testing

/// The protocol's WebSocket text form, both ways. Tried: a body holding line breaks (in JSON whitespace), a message
/// of fewer than four lines, one with no line break at all, an empty topic, a topic of several lines, and
/// `SUBSCRIBE` without its line break.
@Suite struct WebSocketTextTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func aMessageIsItsFourFramesOneALineTheBodyTheRest() {
        let frames = [bytes("FLOWBUS/1"), bytes("STEP"), bytes("{\"id\":1,\"sentAt\":0}"), bytes("{\n  \"a\": 1\n}")]
        let text = WebSocketText.message(frames)
        #expect(String(decoding: text, as: UTF8.self) == "FLOWBUS/1\nSTEP\n{\"id\":1,\"sentAt\":0}\n{\n  \"a\": 1\n}")
        #expect(WebSocketText.inbound(text) == .message(frames))
    }

    @Test func whatIsNotFourLinesStaysWhatItIsForTheCoordinatorToRefuse() {
        #expect(WebSocketText.inbound(bytes("hello")) == .message([bytes("hello")]))
        #expect(
            WebSocketText.inbound(bytes("FLOWBUS/1\nHELLO\n{}"))
                == .message([bytes("FLOWBUS/1"), bytes("HELLO"), bytes("{}")])
        )
        #expect(WebSocketText.inbound(bytes("SUBSCRIBE")) == .message([bytes("SUBSCRIBE")]))
    }

    @Test func subscriptionsNameTheirTopicAfterTheFirstLineBreak() {
        #expect(WebSocketText.inbound(bytes("SUBSCRIBE\ncmd/kiosk-7/main")) == .subscribe(bytes("cmd/kiosk-7/main")))
        #expect(WebSocketText.inbound(bytes("SUBSCRIBE\n")) == .subscribe([]))
        #expect(WebSocketText.inbound(bytes("UNSUBSCRIBE\nins/")) == .unsubscribe(bytes("ins/")))
        #expect(WebSocketText.inbound(bytes("SUBSCRIBE\na\nb")) == .subscribe(bytes("a\nb")))
        #expect(WebSocketText.subscription(bytes("inb/"), subscribed: false) == bytes("UNSUBSCRIBE\ninb/"))
    }

    @Test func aPublishedMessageCarriesItsTopicFirst() {
        let frames = [bytes("FLOWBUS/1"), bytes("HEARTBEAT"), bytes("{\"id\":2,\"sentAt\":0}"), bytes("{}")]
        let text = String(decoding: WebSocketText.published(topic: bytes("cmd/s/main"), frames), as: UTF8.self)
        #expect(text == "PUBLISH\ncmd/s/main\nFLOWBUS/1\nHEARTBEAT\n{\"id\":2,\"sentAt\":0}\n{}")
    }
}
