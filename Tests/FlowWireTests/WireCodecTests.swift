import FlowCore
import FlowWire
import Foundation
import Testing

/// One message of every type, as a peer would send it.
let everyMessage: [Message] = [
    .hello(Hello(role: .presenter, id: "kiosk/main", name: "main", session: "kiosk", capabilities: ["resend"])),
    .welcome(
        Welcome(
            daemonVersion: "0.1.0",
            id: "screen-1",
            session: "kiosk",
            sessionCreated: true,
            heartbeatInterval: 1000,
            heartbeatTimeout: 5000,
            maxMessageSize: 65_536,
            lastSequence: 7
        )
    ),
    .redirect(
        Redirect(session: "kiosk", instance: "flowd-1", control: ["tcp://flowd-1:5860"], events: ["tcp://flowd-1:5861"])
    ),
    .bye(Bye(reason: "shutting down")),
    .heartbeat(Heartbeat()),
    .error(ErrorReply(code: "unknownStep", message: "no step named 'x'")),
    .step(StepMessage(step: Step("movieIsPicked", ["withId": 23452]), sequence: 8, presentable: PresentableID(4))),
    .deepLink(DeepLinkMessage(path: [Step("dashboardIsRequired"), Step("aboutIsRequired")], sequence: 9)),
    .stepAck(StepAck(sequence: 8, fate: WireFate(.accepted(flows: [FlowID(1)])))),
    .stepAck(StepAck(sequence: 9, fate: WireFate(.dropped(.notVisible(PresentableID(4), .hidden))))),
    .visibility(VisibilityReport(visibility: .visible, presentables: [PresentableID(1), PresentableID(2)])),
    .commands(
        CommandsMessage(
            presenter: "main",
            sequence: 3,
            epoch: "e1",
            commands: [
                .push(
                    PresentableDescription(id: PresentableID(5), style: .screen, name: "Detail", flow: FlowID(2)),
                    onto: PresentableID(1)
                )
            ],
            flow: FlowID(2),
            step: Step("movieIsPicked", ["withId": 1])
        )
    ),
    .snapshotRequest(SnapshotRequest(presenter: "main")),
    .snapshot(SnapshotMessage(presenter: "main", sequence: 3, epoch: "e1", commands: [.dismiss(PresentableID(5))])),
    .query(Query(what: "tree", arguments: ["session": "kiosk"])),
    .reply(Reply(result: ["flows": [1, 2]])),
    .sessionData(SessionDataMessage(key: "permissions", value: ["about"])),
    .guardQuestion(
        GuardQuestionMessage(
            question: 1,
            guardName: "permissions",
            subject: "about",
            step: Step("aboutIsRequired"),
            deadline: 5
        )
    ),
    .guardAnswer(GuardAnswer(question: 1, allowed: true)),
    .event(InspectionEvent(kind: "stepFate", session: "kiosk", fields: ["token": 3, "accepted": true])),
    .events(InspectionBatch(session: "kiosk", events: [.init(kind: "flowReady", at: 7, fields: ["flow": 1])])),
]

private let header = Header(id: 42, session: "kiosk", sender: "screen-1", correlation: 41, sentAt: 1_790_000_000_000)

@Suite struct WireCodecTests {
    let codec = WireCodec()

    @Test func everyMessageTypeRoundTripsThroughItsFourFrames() throws {
        #expect(Set(everyMessage.map(\.type)) == Set(MessageType.allCases))
        for message in everyMessage {
            let frames = codec.encode(Envelope(header: header, message: message))
            #expect(frames.count == 4)
            #expect(frames[0] == Array("FLOWBUS/1".utf8))
            #expect(frames[1] == Array(message.type.rawValue.utf8))
            #expect(try codec.decode(frames) == Envelope(header: header, message: message))
            // A body encoded once (what a client keeps for resending a step) makes a message that reads the same.
            let kept = codec.encode(header: header, type: message.type, body: codec.body(of: message))
            #expect(try codec.decode(kept) == Envelope(header: header, message: message))
        }
    }

    @Test func unknownFieldsAreToleratedAndOptionalOnesMayBeLeftOut() throws {
        let frames: [[UInt8]] = [
            Array("FLOWBUS/1".utf8), Array("STEP".utf8),
            Array(#"{"id":1,"sentAt":0,"future":"field"}"#.utf8),
            Array(#"{"step":{"name":"home","parameters":{}},"sequence":1,"priority":"high"}"#.utf8),
        ]
        let envelope = try codec.decode(frames)
        #expect(envelope.header == Header(id: 1, sentAt: 0))
        #expect(envelope.message == .step(StepMessage(step: .home, sequence: 1)))
    }

    @Test func anotherProtocolVersionIsRefusedClearly() {
        var frames = codec.encode(Envelope(header: header, message: .heartbeat(Heartbeat())))
        frames[0] = Array("FLOWBUS/2".utf8)
        let error = #expect(throws: WireError.self) { try codec.decode(frames) }
        #expect(error?.code == .unsupportedVersion)
        #expect(error?.message.contains("speaks FLOWBUS/1") == true)
        frames[0] = Array("HTTP/1.1".utf8)
        #expect((#expect(throws: WireError.self) { try codec.decode(frames) })?.code == .notFlowBus)
    }

    @Test func framesSplitOrJoinedDifferentlyAreRefused() {
        let frames = codec.encode(Envelope(header: header, message: .heartbeat(Heartbeat())))
        // Tried: header and body in one frame, the body split in two, an extra trailing frame, a routing id
        // left in front.
        let variants: [[[UInt8]]] = [
            [frames[0], frames[1], frames[2] + frames[3]],
            [frames[0], frames[1], frames[2], Array(frames[3].prefix(1)), Array(frames[3].dropFirst())],
            frames + [[]],
            [Array("peer".utf8)] + frames,
        ]
        let codes = variants.map { variant in (#expect(throws: WireError.self) { try codec.decode(variant) })?.code }
        #expect(codes == [.wrongFrameCount, .wrongFrameCount, .wrongFrameCount, .notFlowBus])
    }

    @Test func truncatedMessagesAreRefused() {
        let frames = codec.encode(Envelope(header: header, message: everyMessage[5]))
        for count in 0..<4 {
            #expect(throws: WireError.self) { try codec.decode(Array(frames.prefix(count))) }
        }
        var cut = frames
        cut[3] = Array(cut[3].prefix(cut[3].count / 2))
        #expect((#expect(throws: WireError.self) { try codec.decode(cut) })?.code == .malformedBody)
        cut = frames
        cut[2] = Array(cut[2].prefix(5))
        #expect((#expect(throws: WireError.self) { try codec.decode(cut) })?.code == .malformedHeader)
    }

    @Test func corruptedFramesNeverCrashAndMostlyFail() {
        var generator = SystemRandomNumberGenerator()
        var refused = 0
        for message in everyMessage {
            let frames = codec.encode(Envelope(header: header, message: message))
            for _ in 0..<200 {
                var corrupted = frames
                let frame = Int.random(in: 1...3, using: &generator)
                guard !corrupted[frame].isEmpty else { continue }
                let index = Int.random(in: 0..<corrupted[frame].count, using: &generator)
                corrupted[frame][index] = UInt8.random(in: 0...255, using: &generator)
                do {
                    _ = try codec.decode(corrupted)
                } catch {
                    refused += 1
                }
            }
        }
        // Some flips land in string contents and still make a valid message; the codec's job is to never
        // crash and to refuse what is not valid.
        #expect(refused > everyMessage.count * 50)
    }

    @Test func wrongTypesAndMissingFieldsNameTheField() {
        let frames: [[UInt8]] = [
            Array("FLOWBUS/1".utf8), Array("STEP".utf8), Array(#"{"id":1,"sentAt":0}"#.utf8),
            Array(#"{"step":{"name":"home","parameters":{}},"sequence":"one"}"#.utf8),
        ]
        let error = #expect(throws: WireError.self) { try codec.decode(frames) }
        #expect(error?.code == .malformedBody)
        #expect(error?.message.contains("\"sequence\"") == true)
        var missing = frames
        missing[3] = Array(#"{"sequence":1}"#.utf8)
        #expect(
            (#expect(throws: WireError.self) { try codec.decode(missing) })?.message.contains("missing \"step\"")
                == true
        )
        var unknown = frames
        unknown[1] = Array("TELEPORT".utf8)
        #expect((#expect(throws: WireError.self) { try codec.decode(unknown) })?.code == .unknownType)
    }

    /// A client waiting for the answer to a message must get it: every refusal carries the message's `id` as its
    /// correlation once the header frame could be read. Tried: another version, a fourth frame missing, an extra
    /// frame, an unknown type, a body over the limit, a body that is not JSON, a body with a field of the wrong type;
    /// and, without one (nothing to read it from): not FlowBus, a header that is not JSON, a header over the limit.
    @Test func refusalsCarryTheRefusedMessagesIdWheneverItsHeaderCanBeRead() {
        let small = WireCodec(maxHeaderSize: 64, maxBodySize: 128)
        let header = #"{"id":42,"sentAt":0}"#
        func refusal(_ frames: [String]) -> WireError? {
            #expect(throws: WireError.self) { try small.decode(frames.map { Array($0.utf8) }) }
        }
        let body = #"{"step":{"name":"home","parameters":{}},"sequence":1}"#
        let correlated: [(ErrorCode, [String])] = [
            (.unsupportedVersion, ["FLOWBUS/2", "STEP", header, body]),
            (.wrongFrameCount, ["FLOWBUS/1", "STEP", header]),
            (.wrongFrameCount, ["FLOWBUS/1", "STEP", header, body, ""]),
            (.unknownType, ["FLOWBUS/1", "TELEPORT", header, body]),
            (.tooLarge, ["FLOWBUS/1", "STEP", header, String(repeating: " ", count: 129)]),
            (.malformedBody, ["FLOWBUS/1", "STEP", header, "{"]),
            (.malformedBody, ["FLOWBUS/1", "STEP", header, #"{"step":{"name":"home"},"sequence":"one"}"#]),
        ]
        for (code, frames) in correlated {
            let error = refusal(frames)
            #expect(error?.code == code)
            #expect(error?.correlation == 42, "\(code)")
        }
        let uncorrelated: [(ErrorCode, [String])] = [
            (.notFlowBus, ["HTTP/1.1", "STEP", header, body]),
            (.malformedHeader, ["FLOWBUS/1", "STEP", #"{"id":42"#, body]),
            (
                .tooLarge,
                [
                    "FLOWBUS/1", "STEP", #"{"id":42,"sentAt":0,"pad":""# + String(repeating: "x", count: 64) + "\"}",
                    body,
                ]
            ),
        ]
        for (code, frames) in uncorrelated {
            let error = refusal(frames)
            #expect(error?.code == code)
            #expect(error?.correlation == nil, "\(code)")
        }
    }

    /// The bodies a peer sends besides steps name the field and what it must be in the protocol's words. Tried: an
    /// unknown role, a version given as a string and as 1.0, a capability that is not a string, an answer to a
    /// guard question without `allowed`, SESSION_DATA without `value`; accepted: HELLO without `capabilities`,
    /// QUERY without `arguments`, SESSION_DATA whose value is null (it removes the key).
    @Test func controlBodiesNameTheFieldInTheProtocolsWords() throws {
        func body(_ type: String, _ text: String) throws -> Message {
            try codec.decode([
                Array("FLOWBUS/1".utf8), Array(type.utf8), Array(#"{"id":9,"sentAt":0}"#.utf8), Array(text.utf8),
            ])
            .message
        }
        func refusal(_ type: String, _ text: String) -> String? {
            let error = #expect(throws: WireError.self) { try body(type, text) }
            #expect(error?.code == .malformedBody)
            #expect(error?.correlation == 9)
            return error?.message
        }
        let hello = #""id":"k/app","session":"k","protocolVersion":1"#
        #expect(
            refusal("HELLO", "{\(hello),\"role\":\"emperor\"}")?
                .contains(#""role" must be one of stepper, presenter, inspector, guard, not "emperor""#) == true
        )
        #expect(
            refusal("HELLO", #"{"role":"stepper","id":"k/app","protocolVersion":"1"}"#)?
                .contains(#""protocolVersion" must be an integer, not a string"#) == true
        )
        #expect(
            refusal("HELLO", #"{"role":"stepper","id":"k/app","protocolVersion":1.0}"#)?
                .contains("without fraction or exponent") == true
        )
        #expect(
            refusal("HELLO", "{\(hello),\"role\":\"stepper\",\"capabilities\":[1]}")?
                .contains(#""capabilities[0]" must be a string, not a number"#) == true
        )
        #expect(refusal("GUARD_ANSWER", #"{"question":3}"#)?.contains(#"missing "allowed""#) == true)
        #expect(refusal("SESSION_DATA", #"{"key":"user"}"#)?.contains(#"missing "value""#) == true)
        #expect(
            try body("HELLO", "{\(hello),\"role\":\"stepper\"}")
                == .hello(Hello(role: .stepper, id: "k/app", session: "k"))
        )
        #expect(try body("QUERY", #"{"what":"stats"}"#) == .query(Query(what: "stats")))
        #expect(
            try body("SESSION_DATA", #"{"key":"user","value":null}"#)
                == .sessionData(SessionDataMessage(key: "user", value: .null))
        )
    }

    @Test func oversizedFramesAreRefusedBeforeParsing() {
        let small = WireCodec(maxHeaderSize: 64, maxBodySize: 128)
        let big = Message.reply(Reply(result: .string(String(repeating: "x", count: 500))))
        let frames = small.encode(Envelope(header: header, message: big))
        #expect((#expect(throws: WireError.self) { try small.decode(frames) })?.code == .tooLarge)
        var longHeader = frames
        longHeader[2] = Array(repeating: 32, count: 65)
        #expect((#expect(throws: WireError.self) { try small.decode(longHeader) })?.code == .tooLarge)
    }

    @Test func fatesTravelWithTheirReasonInWords() throws {
        let fate = WireFate(.dropped(.notVisible(PresentableID(4), .hidden)))
        #expect(!fate.accepted)
        #expect(fate.reason == "notVisible")
        #expect(fate.presentable == PresentableID(4))
        #expect(fate.explanation == "its presentable p4 was hidden")
        #expect(fate.remedy?.contains("allowStepWhenNotPresented") == true)
        let json = String(decoding: try JSONEncoder().encode(WireFate(.accepted(flows: [FlowID(1)]))), as: UTF8.self)
        #expect(json.contains(#""accepted":true"#) && json.contains(#""flows":[1]"#))
    }
}
