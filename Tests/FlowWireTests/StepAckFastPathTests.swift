import FlowCore
import Testing

@testable import FlowWire

/// A stepper reads each STEP_ACK in one pass straight into its values; anything unusual goes to the general reader.
/// Both must read every message alike: the same envelope for what is valid, the same error for what is not.
@Suite struct StepAckFastPathTests {
    let codec = WireCodec()
    let header = #"{"id":7,"sentAt":1700000000000,"session":"kiosk","correlation":3}"#

    func generalReading(_ body: String) throws -> Envelope {
        Envelope(
            header: try Header(wire: try JSONValue(parsing: Array(header.utf8)), at: ""),
            message: .stepAck(try StepAck(wire: try JSONValue(parsing: Array(body.utf8)), at: ""))
        )
    }

    func frames(_ body: String) -> [[UInt8]] {
        [WireCodec.protocolFrame, Array("STEP_ACK".utf8), Array(header.utf8), Array(body.utf8)]
    }

    /// Tried: an accepted fate with flows (as flowd writes it, and as written by hand with whitespace and members
    /// in another order), a dropped fate with every optional member, unknown members of every JSON type at both
    /// levels, escapes in the sentences, a repeated member (the last counts), the largest ids and sequence.
    @Test(arguments: [
        #"{"sequence":8,"fate":{"accepted":true,"flows":[1,4]}}"#,
        #" { "fate" : { "flows" : [ ] , "accepted" : true } , "sequence" : 0 } "#,
        #"{"sequence":9,"fate":{"accepted":false,"flows":[],"reason":"notVisible","presentable":4,"flow":2,"parameter":"withId","explanation":"p4 is \"hidden\"\n","remedy":"show it ☺"}}"#,
        #"{"x":[1,{"y":null}],"sequence":1,"fate":{"accepted":false,"flows":[],"new":{"a":1.5},"reason":"flowEnded"},"z":true}"#,
        #"{"sequence":1,"fate":{"accepted":true,"flows":[1],"accepted":false,"flows":[]},"sequence":2}"#,
        #"{"sequence":9223372036854775807,"fate":{"accepted":true,"flows":[4294967295]}}"#,
    ])
    func validAcknowledgementsReadAlike(body: String) throws {
        let general = try generalReading(body)
        #expect(codec.stepAckFastPath(header: Array(header.utf8), body: Array(body.utf8)) == general)
        #expect(try codec.decode(frames(body)) == general)
    }

    /// Tried: a negative or fractional sequence, a sequence as a string, null where a value must be, a flow id out
    /// of range or not a number, `accepted` as a string or missing, `flows` missing, an escaped key, a fate that is
    /// not an object, a body that is not JSON. Each is read by the general reader, which refuses what it refused
    /// before, naming the field, and reads the rest as before.
    @Test(arguments: [
        (#"{"sequence":-1,"fate":{"accepted":true,"flows":[]}}"#, #""sequence" must be an integer from 0"#),
        (#"{"sequence":1.5,"fate":{"accepted":true,"flows":[]}}"#, "without fraction or exponent"),
        (#"{"sequence":"1","fate":{"accepted":true,"flows":[]}}"#, #""sequence" must be an integer"#),
        (
            #"{"sequence":1,"fate":{"accepted":true,"flows":[4294967296]}}"#,
            #""fate.flows[0]" must be an integer from 0"#
        ),
        (#"{"sequence":1,"fate":{"accepted":true,"flows":["1"]}}"#, #""fate.flows[0]" must be an integer"#),
        (#"{"sequence":1,"fate":{"accepted":"yes","flows":[]}}"#, #""fate.accepted" must be true or false"#),
        (#"{"sequence":1,"fate":{"flows":[]}}"#, #"missing "fate.accepted""#),
        (#"{"sequence":1,"fate":{"accepted":true}}"#, #"missing "fate.flows""#),
        (#"{"sequence":1,"fate":"accepted"}"#, #""fate" must be an object"#),
        (#"{"sequence":1,"fate":{"accepted":false,"flows":[],"reason":null}}"#, ""),
        (#"{"sequence":1,"fate":{"accepted":true,"flows":[],"presentable":null}}"#, ""),
        (#"{"seq\u0075ence":1,"fate":{"accepted":true,"flows":[]}}"#, ""),
        (#"{"sequence":1,"fate":{"accepted":true,"flows":[]}"#, "not valid"),
    ])
    func unusualAcknowledgementsGoToTheGeneralReader(body: String, expected: String) throws {
        #expect(codec.stepAckFastPath(header: Array(header.utf8), body: Array(body.utf8)) == nil)
        try expectTheGeneralReading(of: frames(body), by: codec, saying: expected) { try generalReading(body) }
    }

    /// What flowd writes is what a stepper reads, through the fast path, for every kind of fate.
    @Test func whatFlowdWritesIsReadThroughTheFastPath() throws {
        let fates = [
            WireFate(.accepted(flows: [FlowID(1), FlowID(7)])),
            WireFate(.dropped(.notVisible(PresentableID(4), .hidden))),
            WireFate(.dropped(.flowEnded(FlowID(3)))),
        ]
        for (index, fate) in fates.enumerated() {
            let envelope = Envelope(
                header: Header(id: UInt64(index), session: "kiosk", correlation: 2, sentAt: 5),
                message: .stepAck(StepAck(sequence: UInt64(index + 1), fate: fate))
            )
            let frames = codec.encode(envelope)
            #expect(codec.stepAckFastPath(header: frames[2], body: frames[3]) == envelope)
        }
    }
}
