import FlowCore
import Testing

@testable import FlowWire

/// A presenter reads each COMMANDS in one pass straight into its values; anything unusual goes to the general
/// reader. Both must read every message alike: the same envelope for what is valid, the same error for what is not.
@Suite struct CommandsFastPathTests {
    let codec = WireCodec()
    let header = #"{"id":7,"sentAt":1700000000000,"session":"kiosk"}"#

    func generalReading(_ body: String) throws -> Envelope {
        Envelope(
            header: try Header(wire: try JSONValue(parsing: Array(header.utf8)), at: ""),
            message: .commands(try CommandsMessage(wire: try JSONValue(parsing: Array(body.utf8)), at: ""))
        )
    }

    func frames(_ body: String) -> [[UInt8]] {
        [WireCodec.protocolFrame, Array("COMMANDS".utf8), Array(header.utf8), Array(body.utf8)]
    }

    static let screen = #"{"id":3,"style":"screen","name":"Item","parameters":{"n":1,"t":[true,null,1.5]}}"#

    /// Tried: every operation as flowd writes it; members in another order, with whitespace; a description with its
    /// flow; unknown members of every JSON type at every level; members an operation does not use; a repeated member
    /// (the last counts); no commands; the largest ids and sequence; escapes in strings.
    @Test(arguments: [
        #"{"presenter":"main","sequence":1,"epoch":"e1","commands":[{"op":"setWindowRoot","presentable":\#(screen)}],"flow":1}"#,
        #"{"presenter":"main","sequence":2,"epoch":"e1","commands":[{"op":"push","container":2,"presentable":\#(screen)},{"op":"pop","container":2,"target":3}],"flow":1,"step":{"name":"tick","parameters":{"n":1}}}"#,
        #" { "flow" : 4 , "commands" : [ { "presentable" : \#(screen) , "container" : 9 , "op" : "present" } ] , "epoch" : "e\u00e9" , "sequence" : 3 , "presenter" : "side \"2\"" } "#,
        #"{"presenter":"main","sequence":4,"epoch":"e1","commands":[{"op":"dismiss","target":5,"container":1},{"op":"selectTab","container":6,"index":1}],"flow":2}"#,
        #"{"presenter":"main","sequence":5,"epoch":"e1","commands":[{"op":"setTabs","container":6,"tabs":[\#(screen),{"id":8,"style":"stack","name":"Sub","parameters":{},"flow":3}],"selected":0}],"flow":2}"#,
        #"{"presenter":"main","sequence":6,"epoch":"e1","commands":[{"op":"setMaster","container":4,"presentable":\#(screen)},{"op":"setDetail","container":4,"presentable":\#(screen),"x":{"y":[1,{}]}}],"flow":1,"z":null}"#,
        #"{"presenter":"main","sequence":7,"epoch":"e1","commands":[],"flow":1,"sequence":8}"#,
        #"{"presenter":"main","sequence":9223372036854775807,"epoch":"e1","commands":[{"op":"dismiss","target":4294967295}],"flow":4294967295}"#,
    ])
    func validBatchesReadAlike(body: String) throws {
        let general = try generalReading(body)
        #expect(codec.commandsFastPath(header: Array(header.utf8), body: Array(body.utf8)) == general)
        #expect(try codec.decode(frames(body)) == general)
    }

    /// Tried: a negative or fractional sequence, an id out of range, a style and an operation that do not exist, an
    /// operation without what it needs, a malformed member the operation does not use, `null` where a value may be
    /// absent (`step`, a description's `flow`), a missing `epoch`, commands that are not an array or hold something
    /// else than objects, a trailing comma, an escaped key, a body that is not JSON. Each is read by the general
    /// reader, which refuses what it refused before, naming the field, and reads the rest as before.
    @Test(arguments: [
        (
            #"{"presenter":"main","sequence":-1,"epoch":"e","commands":[],"flow":1}"#,
            #""sequence" must be an integer from 0"#
        ),
        (#"{"presenter":"main","sequence":1.5,"epoch":"e","commands":[],"flow":1}"#, "without fraction or exponent"),
        (
            #"{"presenter":"main","sequence":1,"epoch":"e","commands":[],"flow":4294967296}"#,
            #""flow" must be an integer from 0"#
        ),
        (
            #"{"presenter":"main","sequence":1,"epoch":"e","commands":[{"op":"setWindowRoot","presentable":{"id":1,"style":"modal","name":"A","parameters":{}}}],"flow":1}"#,
            #""commands[0].presentable.style" must be one of"#
        ),
        (
            #"{"presenter":"main","sequence":1,"epoch":"e","commands":[{"op":"fly"}],"flow":1}"#,
            "unknown navigation command"
        ),
        (
            #"{"presenter":"main","sequence":1,"epoch":"e","commands":[{"op":"push","presentable":\#(screen)}],"flow":1}"#,
            #"missing "commands[0].container""#
        ),
        (#"{"presenter":"main","sequence":1,"epoch":"e","commands":[],"flow":1,"step":null}"#, ""),
        (
            #"{"presenter":"main","sequence":1,"epoch":"e","commands":[{"op":"dismiss","target":5,"presentable":"x"}],"flow":1}"#,
            ""
        ),
        (
            #"{"presenter":"main","sequence":1,"epoch":"e","commands":[{"op":"setWindowRoot","presentable":{"id":1,"style":"screen","name":"A","parameters":{},"flow":null}}],"flow":1}"#,
            ""
        ),
        (#"{"presenter":"main","sequence":1,"commands":[],"flow":1}"#, #"missing "epoch""#),
        (#"{"presenter":"main","sequence":1,"epoch":"e","commands":{},"flow":1}"#, #""commands" must be an array"#),
        (
            #"{"presenter":"main","sequence":1,"epoch":"e","commands":[1],"flow":1}"#,
            #""commands[0]" must be an object"#
        ),
        (
            #"{"presenter":"main","sequence":1,"epoch":"e","commands":[{"op":"dismiss","target":1},],"flow":1}"#,
            "not valid"
        ),
        (#"{"pres\u0065nter":"main","sequence":1,"epoch":"e","commands":[],"flow":1}"#, ""),
        (#"{"presenter":"main","sequence":1,"epoch":"e","commands":[],"flow":1"#, "not valid"),
    ])
    func unusualBatchesGoToTheGeneralReader(body: String, expected: String) throws {
        #expect(codec.commandsFastPath(header: Array(header.utf8), body: Array(body.utf8)) == nil)
        try expectTheGeneralReading(of: frames(body), by: codec, saying: expected) { try generalReading(body) }
    }

    /// What flowd writes is what a presenter reads, through the fast path, for every operation.
    @Test func whatFlowdWritesIsReadThroughTheFastPath() throws {
        let item = PresentableDescription(
            id: PresentableID(3),
            style: .screen,
            name: "Item",
            parameters: ["n": 1],
            flow: nil
        )
        let sub = PresentableDescription(
            id: PresentableID(4),
            style: .stack,
            name: "Sub",
            parameters: [:],
            flow: FlowID(2)
        )
        let commands: [NavigationCommand] = [
            .setWindowRoot(item), .push(item, onto: PresentableID(1)),
            .pop(stack: PresentableID(1), to: PresentableID(2)),
            .present(sub, over: PresentableID(1)), .dismiss(PresentableID(4)),
            .setTabs(PresentableID(5), [item, sub], selected: 1),
            .selectTab(PresentableID(5), index: 0), .setMaster(PresentableID(6), item),
            .setDetail(PresentableID(6), sub),
        ]
        let envelope = Envelope(
            header: Header(id: 9, session: "kiosk", sentAt: 5),
            message: .commands(
                CommandsMessage(
                    presenter: "main",
                    sequence: 12,
                    epoch: "e1",
                    commands: commands,
                    flow: FlowID(1),
                    step: Step("tick", ["n": 2])
                )
            )
        )
        let frames = codec.encode(envelope)
        #expect(codec.commandsFastPath(header: frames[2], body: frames[3]) == envelope)
    }
}
