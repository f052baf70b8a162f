import FlowCore
import FlowWire
import Foundation

/// The seed corpus: one valid message of every type, as the codec encodes it, and JSON values of every kind.
enum Corpus {
    static func messages() -> [(String, Message)] {
        let step = Step(
            "movieIsPicked",
            ["withId": .int(23_452), "title": .string("Ça \u{1F3AC}"), "rating": .double(4.5)]
        )
        let fate = WireFate(
            accepted: false,
            flows: [],
            reason: "notVisible",
            presentable: PresentableID(4),
            explanation: "hidden"
        )
        return [
            ("hello", .hello(Hello(role: .presenter, id: "kiosk/main", name: "main", session: "kiosk"))),
            (
                "welcome",
                .welcome(
                    Welcome(
                        daemonVersion: "0.1.0",
                        id: "kiosk/main",
                        session: "kiosk",
                        sessionCreated: true,
                        heartbeatInterval: 1000,
                        heartbeatTimeout: 5000,
                        maxMessageSize: 65_536,
                        lastSequence: 7,
                        epoch: "e"
                    )
                )
            ),
            ("bye", .bye(Bye(reason: "done"))),
            ("heartbeat", .heartbeat(Heartbeat())),
            ("error", .error(ErrorReply(.tooLong, message: "step.name is 200 bytes long"))),
            ("step", .step(StepMessage(step: step, sequence: 12, presentable: PresentableID(4)))),
            ("deeplink", .deepLink(DeepLinkMessage(path: [Step("dashboardIsRequired"), step], sequence: 13))),
            ("stepack", .stepAck(StepAck(sequence: 12, fate: fate))),
            (
                "visibility",
                .visibility(VisibilityReport(visibility: .visible, presentables: [PresentableID(1), PresentableID(2)]))
            ),
            (
                "commands",
                .commands(
                    CommandsMessage(
                        presenter: "main",
                        sequence: 8,
                        epoch: "e",
                        commands: [],
                        flow: FlowID(1),
                        step: step
                    )
                )
            ),
            ("snapshotrequest", .snapshotRequest(SnapshotRequest(presenter: "main"))),
            ("snapshot", .snapshot(SnapshotMessage(presenter: "main", sequence: 8, epoch: "e", commands: []))),
            ("query", .query(Query(what: "tree", arguments: ["session": "kiosk"]))),
            ("reply", .reply(Reply(result: ["sessions": [["session": "kiosk", "ready": true]]]))),
            ("sessiondata", .sessionData(SessionDataMessage(key: "permissions", value: ["about"]))),
            (
                "guardquestion",
                .guardQuestion(
                    GuardQuestionMessage(
                        question: 3,
                        guardName: "permissions",
                        subject: "about",
                        step: step,
                        deadline: 9
                    )
                )
            ),
            ("guardanswer", .guardAnswer(GuardAnswer(question: 3, allowed: true))),
            ("event", .event(InspectionEvent(kind: "stepFate", session: "kiosk", fields: ["step": "about"]))),
            (
                "events",
                .events(
                    InspectionBatch(
                        session: "kiosk",
                        events: [InspectionBatch.Entry(kind: "stepFate", at: 5, fields: ["accepted": true])]
                    )
                )
            ),
        ]
    }

    static let jsonValues: [String] = [
        #"{"a":[1,-2.5e3,true,false,null,"\u00e9\n\""],"b":{"c":{}}}"#, "[]", "12345678901234567890",
        "\"\\ud83c\\udfac\"",
        "-0", "1E400",
    ]

    /// Writes the corpus files into `directory`.
    static func write(to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let header = Header(id: 1, session: "kiosk", sender: "kiosk/main", correlation: 3, sentAt: 1_700_000_000_000)
        for (name, message) in messages() {
            let input = FuzzTargets.wireInput(FuzzTargets.codec.encode(Envelope(header: header, message: message)))
            try Data(input).write(to: URL(fileURLWithPath: directory + "/wire-\(name)"))
        }
        for (index, text) in jsonValues.enumerated() {
            try Data([0] + Array(text.utf8)).write(to: URL(fileURLWithPath: directory + "/json-\(index)"))
        }
    }
}
