import Testing
import ZeroMQ

@Suite struct CurveTests {
    @Test func z85MatchesTheSpecificationsTestVector() throws {
        let bytes: [UInt8] = [0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B]
        #expect(try Z85.encode(bytes) == "HelloWorld")
        #expect(try Z85.decode("HelloWorld") == bytes)
    }

    @Test func malformedZ85AndKeysAreRefused() throws {
        // Tried: a length not a multiple of 4 or 5, characters outside the alphabet, keys of the wrong size.
        #expect(throws: ZeroMQError.self) { try Z85.encode([1, 2, 3]) }
        #expect(throws: ZeroMQError.self) { try Z85.decode("Hell") }
        #expect(throws: ZeroMQError.self) { try Z85.decode("Hello Worl") }
        let shortKey = #expect(throws: ZeroMQError.self) { try CurveKey(z85: "HelloWorld") }
        #expect(shortKey?.code == .invalidKey)
        #expect(throws: ZeroMQError.self) { try CurveKey(bytes: [UInt8](repeating: 0, count: 31)) }
    }

    @Test func generatedKeyPairsRoundTripThroughZ85AndDeriveTheirPublicKey() throws {
        let pair = try CurveKeyPair.generate()
        #expect(pair.publicKey != pair.secretKey)
        #expect(pair.publicKey.z85.utf8.count == 40)
        #expect(try CurveKey(z85: pair.secretKey.z85) == pair.secretKey)
        #expect(try CurveKeyPair(secretKey: pair.secretKey).publicKey == pair.publicKey)
        #expect(try CurveKeyPair.generate() != pair)
    }

    @Test(arguments: Transport.allCases)
    func zapLetsAnAllowedKeyTalkAndRefusesAnUnknownOne(transport: Transport) throws {
        let context = try Context()
        let server = try CurveKeyPair.generate()
        let alice = try CurveKeyPair.generate()
        let mallory = try CurveKeyPair.generate()
        let allowed = alice.publicKey
        let zap = try ZAPHandler(context: context) { request in
            guard request.mechanism == "CURVE", request.clientKey == allowed else {
                return .deny(reason: "unknown client key")
            }
            return .allow(userID: "alice")
        }
        defer { zap.stop() }

        let router = try Socket(.router, context: context)
        try router.makeCurveServer(secretKey: server.secretKey)
        let endpoint = try router.bindFresh(transport)

        let intruder = try Socket(.dealer, context: context)
        try intruder.makeCurveClient(keyPair: mallory, serverKey: server.publicKey)
        let intruderEvents = try intruder.monitor()
        try intruder.connect(endpoint)
        try intruder.send(Message(strings: ["let me in"]))
        let refusal = try #require(try intruderEvents.wait(for: .handshakeFailedAuthentication, within: .seconds(5)))
        #expect(refusal.value == 400)

        let client = try Socket(.dealer, context: context)
        try client.makeCurveClient(keyPair: alice, serverKey: server.publicKey)
        try client.connect(endpoint)
        try client.send(Message(strings: ["hello"]))

        let received = try router.expectMessage()
        #expect(received.strings.dropFirst() == ["hello"])
        #expect(received.userID == "alice")
        // Nothing of the refused client ever arrived, before or after alice's message.
        #expect(try router.receive(dontWait: true) == nil)
        try router.send(Message([received[0], Array("welcome".utf8)]))
        #expect(try client.expectMessage().strings == ["welcome"])
    }

    @Test func aClientWithoutCurveCannotTalkToACurveServer() throws {
        let context = try Context()
        let server = try CurveKeyPair.generate()
        let router = try Socket(.router, context: context)
        try router.makeCurveServer(secretKey: server.secretKey)
        let endpoint = try router.bindFresh(.tcp)

        let plain = try Socket(.dealer, context: context)
        let events = try plain.monitor()
        try plain.connect(endpoint)
        try plain.send(Message(strings: ["plain text"]))
        #expect(try events.wait(for: .handshakeFailedProtocol, within: .seconds(5)) != nil)
        #expect(try router.receive(dontWait: true) == nil)
    }

    @Test func oneContextHasOneZAPHandlerAtATime() throws {
        let context = try Context()
        let first = try ZAPHandler(context: context) { _ in .allow(userID: "") }
        let second = #expect(throws: ZeroMQError.self) {
            try ZAPHandler(context: context) { _ in .allow(userID: "") }
        }
        #expect(second?.code == .addressInUse)
        first.stop()
        first.stop()
        // Once stopped, the endpoint is free for a new handler.
        let third = try ZAPHandler(context: context) { _ in .allow(userID: "") }
        third.stop()
    }
}
