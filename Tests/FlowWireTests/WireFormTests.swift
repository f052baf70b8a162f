import FlowCore
import FlowWire
import Foundation
import Testing

/// The hot messages' hand-written wire forms (``WireRepresentable``) against their `Codable` forms: the text
/// one writes, the other reads, both ways, so that a peer using either (or Foundation's coder) understands the
/// other.
@Suite struct WireFormTests {
    private static let description = PresentableDescription(
        id: PresentableID(5),
        style: .screen,
        name: "Detail",
        parameters: ["movieId": 23452, "title": "Up \"quoted\""],
        flow: FlowID(2)
    )
    private static let container = PresentableDescription(id: PresentableID(1), style: .tabs, name: "main", flow: nil)

    /// Every navigation command, with and without optional members.
    static let commands: [NavigationCommand] = [
        .setWindowRoot(container), .push(description, onto: PresentableID(1)),
        .pop(stack: PresentableID(1), to: PresentableID(2)), .present(description, over: PresentableID(3)),
        .dismiss(PresentableID(5)), .setTabs(PresentableID(1), [description, container], selected: 1),
        .selectTab(PresentableID(1), index: 0), .setMaster(PresentableID(6), description),
        .setDetail(PresentableID(6), container),
    ]

    static let fates: [WireFate] = [
        WireFate(.accepted(flows: [FlowID(1), FlowID(3)])),
        WireFate(.dropped(.notVisible(PresentableID(4), .hidden))),
        WireFate(.dropped(.flowEnded(FlowID(2)))),
        WireFate(.dropped(.unboundStepper)),
    ]

    private func roundTrips<Value: WireRepresentable & Codable & Equatable>(_ value: Value) throws {
        let handWritten = value.wireValue.jsonText()
        #expect(try FlowJSON.decode(Value.self, from: handWritten) == value, "\(value)")
        #expect(try JSONDecoder().decode(Value.self, from: Data(handWritten)) == value, "\(value)")
        let byFoundation = try JSONEncoder().encode(value)
        #expect(try Value(wire: JSONValue(parsing: byFoundation), at: "") == value, "\(value)")
        #expect(try Value(wire: FlowJSON.value(of: value), at: "") == value, "\(value)")
    }

    @Test func headersReadAndWriteAsTheirCodableForm() throws {
        try roundTrips(Header(id: 1, sentAt: 0))
        try roundTrips(Header(id: 42, session: "kiosk/7", sender: "kiosk/7/main", correlation: 41, sentAt: -5))
        try roundTrips(Header(id: UInt64(Int.max), sentAt: Int64.max))
    }

    @Test func stepMessagesReadAndWriteAsTheirCodableForm() throws {
        try roundTrips(Step("home"))
        try roundTrips(Step("movieIsPicked", ["withId": 23452, "rating": 8.5, "tags": ["a", nil, true], "o": [:]]))
        try roundTrips(StepMessage(step: Step("home"), sequence: 1))
        try roundTrips(StepMessage(step: Step("tap", ["x": 1]), sequence: 9, presentable: PresentableID(4)))
        try roundTrips(DeepLinkMessage(path: [Step("a"), Step("b", ["id": "7"])], sequence: 3))
        try roundTrips(DeepLinkMessage(path: [Step("only")], sequence: 4))
        for fate in Self.fates {
            try roundTrips(fate)
            try roundTrips(StepAck(sequence: 12, fate: fate))
        }
    }

    @Test func presenterMessagesReadAndWriteAsTheirCodableForm() throws {
        for command in Self.commands {
            try roundTrips(command)
        }
        try roundTrips(Self.description)
        try roundTrips(Self.container)
        for visibility in Visibility.allCases {
            try roundTrips(
                VisibilityReport(visibility: visibility, presentables: [PresentableID(1), PresentableID(9)])
            )
        }
        try roundTrips(
            CommandsMessage(
                presenter: "main",
                sequence: 3,
                epoch: "e",
                commands: Self.commands,
                flow: FlowID(2),
                step: nil
            )
        )
        try roundTrips(
            CommandsMessage(presenter: "p", sequence: 1, epoch: "e", commands: [], flow: FlowID(1), step: Step("go"))
        )
    }

    @Test func inspectionEventsAndHeartbeatsReadAndWriteAsTheirCodableForm() throws {
        try roundTrips(InspectionEvent(kind: "stepFate", session: "kiosk", fields: ["token": 3, "accepted": true]))
        try roundTrips(InspectionEvent(kind: "registered", session: nil, fields: [:]))
        try roundTrips(Heartbeat())
        try roundTrips(
            InspectionBatch(
                session: "kiosk",
                events: [
                    .init(kind: "stepReceived", at: 1_790_000_000_000, fields: ["token": 3]),
                    .init(kind: "commands", at: 1_790_000_000_001, fields: ["presenter": "main", "commands": []]),
                ]
            )
        )
        try roundTrips(InspectionBatch(session: nil, events: []))
        #expect(try Heartbeat(wire: JSONValue(parsing: Array(#"{"later":1}"#.utf8)), at: "") == Heartbeat())
    }

    /// Bad bodies tried: not an object, a missing member (nested in an array), null for a required member, a
    /// string for a number, a negative sequence, an id too big for an id, a fraction for an index, an unknown
    /// command, style and visibility, numbers with a fraction or an exponent (0.5, 7.0, 1e3, 1e300, 1e19,
    /// 9007199254740993.0) and 2^63 (above the protocol's signed 64-bit integers); unknown members are ignored.
    @Test(arguments: [
        ("[]", "must be an object, not an array"),
        (
            #"{"presenter":"p","sequence":1,"epoch":"e","flow":1,"commands":[{"op":"dismiss","target":1},{"op":"push","container":1,"presentable":{"id":2,"style":"screen","parameters":{}}}]}"#,
            #"missing "commands[1].presentable.name""#
        ),
        (#"{"presenter":null,"sequence":1,"epoch":"e","flow":1,"commands":[]}"#, #""presenter" must not be null"#),
        (
            #"{"presenter":"p","sequence":"1","epoch":"e","flow":1,"commands":[]}"#,
            #""sequence" must be an integer, not a string"#
        ),
        (
            #"{"presenter":"p","sequence":-1,"epoch":"e","flow":1,"commands":[]}"#,
            #""sequence" must be an integer from 0 to 9223372036854775807, not -1"#
        ),
        (
            #"{"presenter":"p","sequence":1,"epoch":"e","flow":4294967296,"commands":[]}"#,
            #""flow" must be an integer from 0 to 4294967295, not 4294967296"#
        ),
        (
            #"{"presenter":"p","sequence":1,"epoch":"e","flow":1,"commands":[{"op":"selectTab","container":1,"index":0.5}]}"#,
            #""commands[0].index" must be an integer from"#
        ),
        (
            #"{"presenter":"p","sequence":1,"epoch":"e","flow":1,"commands":[{"op":"teleport"}]}"#,
            #"unknown navigation command "teleport""#
        ),
        (
            #"{"presenter":"p","sequence":1,"epoch":"e","flow":1,"commands":[{"op":"setWindowRoot","presentable":{"id":1,"style":"window","name":"m","parameters":{}}}]}"#,
            #""commands[0].presentable.style" must be one of screen, stack, tabs, split, not "window""#
        ),
        (
            #"{"presenter":"p","sequence":1e300,"epoch":"e","flow":1,"commands":[]}"#,
            #""sequence" must be an integer from 0 to 9223372036854775807, without fraction or exponent"#
        ),
        // Fits a UInt64, but a double holds it only approximately: refused rather than rounded.
        (
            #"{"presenter":"p","sequence":1e19,"epoch":"e","flow":1,"commands":[]}"#,
            #""sequence" must be an integer from 0"#
        ),
        (
            #"{"presenter":"p","sequence":9007199254740993.0,"epoch":"e","flow":1,"commands":[]}"#,
            #""sequence" must be an integer from 0"#
        ),
        (
            #"{"presenter":"p","sequence":7.0,"epoch":"e","flow":1,"commands":[]}"#,
            #""sequence" must be an integer from 0 to 9223372036854775807, without fraction or exponent, not 7.0"#
        ),
        (
            #"{"presenter":"p","sequence":1e3,"epoch":"e","flow":1,"commands":[]}"#,
            #"without fraction or exponent, not 1000.0"#
        ),
        (
            #"{"presenter":"p","sequence":9223372036854775808,"epoch":"e","flow":1,"commands":[]}"#,
            #""sequence" must be an integer from 0 to 9223372036854775807"#
        ),
    ])
    func badCommandsNameTheField(body: String, message: String) {
        let error = #expect(throws: WireFieldError.self) {
            try CommandsMessage(wire: JSONValue(parsing: Array(body.utf8)), at: "")
        }
        #expect(error?.message.contains(message) == true, "\(String(describing: error)) does not say \(message)")
    }

    /// Bad EVENTS tried: no `events`, an entry without `at`, a fraction for `at`, `fields` not an object.
    @Test(arguments: [
        (#"{"session":"k"}"#, #"missing "events""#),
        (#"{"events":[{"kind":"a","at":1,"fields":{}},{"kind":"b","fields":{}}]}"#, #"missing "events[1].at""#),
        (#"{"events":[{"kind":"a","at":1.5,"fields":{}}]}"#, #""events[0].at" must be an integer"#),
        (#"{"events":[{"kind":"a","at":1,"fields":[]}]}"#, #""events[0].fields" must be an object"#),
    ])
    func badEventBatchesNameTheField(body: String, message: String) {
        let error = #expect(throws: WireFieldError.self) {
            try InspectionBatch(wire: JSONValue(parsing: Array(body.utf8)), at: "")
        }
        #expect(error?.message.contains(message) == true, "\(String(describing: error)) does not say \(message)")
    }

    @Test func unknownVisibilityAndMembersOfTheWrongKindAreNamed() throws {
        func failure<Value: WireRepresentable>(_ type: Value.Type, _ body: String) -> String? {
            (#expect(throws: WireFieldError.self) { try Value(wire: JSONValue(parsing: Array(body.utf8)), at: "") })?
                .message
        }
        #expect(
            failure(VisibilityReport.self, #"{"visibility":"seen","presentables":[]}"#)?.contains("not \"seen\"")
                == true
        )
        #expect(
            failure(VisibilityReport.self, #"{"visibility":"visible","presentables":[1,"2"]}"#)
                == #""presentables[1]" must be an integer, not a string"#
        )
        #expect(
            failure(StepMessage.self, #"{"step":{"name":"a","parameters":[]},"sequence":1}"#)
                == #""step.parameters" must be an object, not an array"#
        )
        #expect(
            failure(StepAck.self, #"{"sequence":1,"fate":{"accepted":"yes","flows":[]}}"#)
                == #""fate.accepted" must be true or false, not a string"#
        )
        #expect(failure(Header.self, #"{"id":1}"#) == #"missing "sentAt""#)
        let extra = try StepMessage(
            wire: JSONValue(parsing: Array(#"{"step":{"name":"a","parameters":{},"v":2},"sequence":1,"new":[]}"#.utf8)),
            at: ""
        )
        #expect(extra == StepMessage(step: Step("a"), sequence: 1))
    }
}
