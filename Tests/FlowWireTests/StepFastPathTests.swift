import FlowCore
import Testing

@testable import FlowWire

/// flowd reads a STEP in one pass straight into its values; anything unusual goes to the general reader. Both must
/// read every message alike: the same envelope for what is valid, the same error for what is not.
@Suite struct StepFastPathTests {
    let codec = WireCodec()

    /// What the general reader makes of the frames: the header and body read as JSON values, then as wire forms.
    func generalReading(header: String, body: String) throws -> Envelope {
        let headerValue = try JSONValue(parsing: Array(header.utf8))
        let bodyValue = try JSONValue(parsing: Array(body.utf8))
        return Envelope(
            header: try Header(wire: headerValue, at: ""),
            message: .step(try StepMessage(wire: bodyValue, at: ""))
        )
    }

    func frames(_ header: String, _ body: String) -> [[UInt8]] {
        [WireCodec.protocolFrame, Array("STEP".utf8), Array(header.utf8), Array(body.utf8)]
    }

    /// Tried: members in another order, whitespace everywhere, unknown members of every JSON type (at both levels),
    /// escapes and non-ASCII in strings, nested and empty parameters, a presentable, optional header members left
    /// out, a repeated member (the last one counts), the largest integers.
    @Test(arguments: [
        (
            #"{"id":2,"sentAt":0,"session":"bench","sender":"s1"}"#,
            #"{"step":{"name":"tick","parameters":{"n":1}},"sequence":1}"#
        ),
        (
            #" { "sender" : "s1" , "id" : 7 , "sentAt" : -5 } "#,
            #" { "sequence" : 3 , "step" : { "parameters" : { } , "name" : "a" } } "#
        ),
        (
            #"{"id":1,"sentAt":1,"x":[1,{"y":null}],"z":true}"#,
            #"{"extra":{"deep":[1,2,{"a":"b"}]},"step":{"name":"t","parameters":{},"more":1.5},"sequence":1,"also":null}"#
        ),
        (
            #"{"id":1,"sentAt":1,"session":"k\"iosk\u00e9","correlation":4}"#,
            #"{"step":{"name":"pick\n\u263A","parameters":{"withId":23452,"list":[1,"two",null],"nested":{"a":{"b":false}}}},"sequence":9,"presentable":4}"#
        ),
        (
            #"{"id":9223372036854775807,"sentAt":-9223372036854775808}"#,
            #"{"step":{"name":"t","parameters":{}},"sequence":9223372036854775807,"presentable":4294967295}"#
        ),
        (
            #"{"id":1,"id":2,"sentAt":0}"#,
            #"{"sequence":5,"step":{"name":"first","parameters":{}},"step":{"name":"last","parameters":{"k":"v"}},"sequence":6}"#
        ),
        (
            #"{"id":1,"sentAt":0,"session":"ünïcødé 🚀"}"#,
            #"{"step":{"name":"ünï","parameters":{"ключ":"значение"}},"sequence":2}"#
        ),
    ])
    func validStepsReadAlike(header: String, body: String) throws {
        let fast = try #require(codec.stepFastPath(header: Array(header.utf8), body: Array(body.utf8)))
        #expect(fast == (try generalReading(header: header, body: body)))
        #expect(try codec.decode(frames(header, body)) == fast)
    }

    /// Tried: a sequence of 0, negative, fractional, as a string, or null; a presentable out of range or null; a step
    /// without parameters or name, of the wrong type; a header without id or sentAt, a negative id, a null session,
    /// an escaped key; bodies that are not JSON, or JSON with trailing text. Each is refused as before, naming the
    /// field.
    @Test(arguments: [
        (#"{"id":1,"sentAt":0}"#, #"{"step":{"name":"t","parameters":{}},"sequence":0}"#, "sequences start at 1"),
        (
            #"{"id":1,"sentAt":0}"#, #"{"step":{"name":"t","parameters":{}},"sequence":-1}"#,
            #""sequence" must be an integer from"#
        ),
        (
            #"{"id":1,"sentAt":0}"#, #"{"step":{"name":"t","parameters":{}},"sequence":1.0}"#,
            "without fraction or exponent"
        ),
        (
            #"{"id":1,"sentAt":0}"#, #"{"step":{"name":"t","parameters":{}},"sequence":"1"}"#,
            #""sequence" must be an integer, not a string"#
        ),
        (
            #"{"id":1,"sentAt":0}"#, #"{"step":{"name":"t","parameters":{}},"sequence":null}"#,
            #""sequence" must not be null"#
        ),
        (
            #"{"id":1,"sentAt":0}"#, #"{"step":{"name":"t","parameters":{}},"sequence":1,"presentable":4294967296}"#,
            #""presentable" must be an integer from 0 to 4294967295"#
        ),
        (#"{"id":1,"sentAt":0}"#, #"{"step":{"name":"t"},"sequence":1}"#, #"missing "step.parameters""#),
        (#"{"id":1,"sentAt":0}"#, #"{"step":{"parameters":{}},"sequence":1}"#, #"missing "step.name""#),
        (
            #"{"id":1,"sentAt":0}"#, #"{"step":{"name":3,"parameters":{}},"sequence":1}"#,
            #""step.name" must be a string"#
        ),
        (#"{"id":1,"sentAt":0}"#, #"{"step":"tick","sequence":1}"#, #""step" must be an object"#),
        (#"{"sentAt":0}"#, #"{"step":{"name":"t","parameters":{}},"sequence":1}"#, #"missing "id""#),
        (#"{"id":1}"#, #"{"step":{"name":"t","parameters":{}},"sequence":1}"#, #"missing "sentAt""#),
        (
            #"{"id":-1,"sentAt":0}"#, #"{"step":{"name":"t","parameters":{}},"sequence":1}"#,
            #""id" must be an integer from 0"#
        ),
        (#"{"id":1,"sentAt":0,"session":null}"#, #"{"step":{"name":"t","parameters":{}},"sequence":1}"#, ""),
        (#"{"id":1,"sentAt":0}"#, #"{"step":{"name":"t","parameters":{}},"seq\u0075ence":1}"#, ""),
        (#"{"id":1,"sentAt":0}"#, #"{"step":{"name":"t","parameters":{}},"sequence":1"#, "not valid"),
        (#"{"id":1,"sentAt":0}"#, #"{"step":{"name":"t","parameters":{}},"sequence":1} x"#, "not valid"),
    ])
    func unusualStepsGoToTheGeneralReader(header: String, body: String, expected: String) throws {
        #expect(codec.stepFastPath(header: Array(header.utf8), body: Array(body.utf8)) == nil)
        try expectTheGeneralReading(of: frames(header, body), by: codec, saying: expected) {
            try generalReading(header: header, body: body)
        }
    }
}
