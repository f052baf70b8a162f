import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

@testable import FlowDaemon
@testable import FlowDaemonCore

/// CURVE keys granted sessions and roles, at a real flowd over tcp: a peer of kiosk A cannot say HELLO in kiosk B,
/// step there, read B's tree, end B, or subscribe to B's commands or inspection stream; a reading inspector cannot
/// act; what each key is granted works as without grants.
@Suite struct AuthorizationTests {
    @Test func aKeyGrantedOneSessionCannotReachAnotherNorActBeyondItsRoles() throws {
        let server = try CurveKeyPair.generate()
        let (appA, mainA, appB, mainB, reader) = try (
            CurveKeyPair.generate(), CurveKeyPair.generate(), CurveKeyPair.generate(), CurveKeyPair.generate(),
            CurveKeyPair.generate()
        )
        let daemon = try DaemonProcess([
            "--flows", demoFlows, "--control", "tcp://127.0.0.1:*", "--events", "tcp://127.0.0.1:*",
            "--curve-secret-key=\(server.secretKey.z85)",
            "--authorize=a/app=\(appA.publicKey.z85):a:stepper",
            "--authorize=a/main=\(mainA.publicKey.z85):a:presenter",
            "--authorize=b/app=\(appB.publicKey.z85):b:stepper",
            "--authorize=b/main=\(mainB.publicKey.z85):b",
            "--authorize=reader=\(reader.publicKey.z85):a:inspector",
        ])
        let (control, events) = try daemon.readyEndpoints()
        let context = try Context()
        func peer(_ id: String, _ session: String, _ keys: CurveKeyPair) throws -> TestPeer {
            try TestPeer(
                id,
                session: session,
                context: context,
                control: control[0],
                events: events[0],
                curve: (keys, server.publicKey)
            )
        }
        func refusal(_ peer: TestPeer) throws -> ErrorReply {
            try peer.expect { if case .error(let error) = $0 { error } else { nil } }
        }

        // B's own peers work.
        let presenterB = try peer("b/main", "b", mainB)
        try presenterB.subscribe("cmd/b/main")
        try presenterB.hello(.presenter, name: "main")
        let stepperB = try peer("b/app", "b", appB)
        try stepperB.hello(.stepper, name: "app")
        #expect(try stepperB.emit(Step("onboardingIsRequired"), sequence: 1).accepted)
        _ = try presenterB.expectPublished { if case .commands(let batch) = $0 { batch } else { nil } }

        // Tried with A's stepper key: HELLO in session b, HELLO as a presenter or an inspector of a.
        let stepperA = try peer("a/app", "a", appA)
        try stepperA.send(.hello(Hello(role: .stepper, id: "a/app", name: "app", session: "b")))
        #expect(try refusal(stepperA).code == "notAllowed")
        try stepperA.send(.hello(Hello(role: .presenter, id: "a/app", name: "main", session: "a")))
        #expect(try refusal(stepperA).message.contains("role presenter"))
        try stepperA.send(.hello(Hello(role: .inspector, id: "a/app", name: "spy", session: nil)))
        #expect(try refusal(stepperA).code == "notAllowed")
        try stepperA.hello(.stepper, name: "app")

        // The reading inspector of a: reads a's tree; not b's, not b's sessions, and cannot act even in a.
        do {
            let inspector = try peer("reader", "a", reader)
            try inspector.send(.hello(Hello(role: .inspector, id: "reader", name: "reader", session: nil)))
            _ = try inspector.expect { if case .welcome(let welcome) = $0 { welcome } else { nil } }
            try inspector.send(.query(Query(what: "tree", arguments: ["session": "a"])))
            _ = try inspector.expect { if case .reply(let reply) = $0 { reply } else { nil } }
            try inspector.send(.query(Query(what: "tree", arguments: ["session": "b"])))
            #expect(try refusal(inspector).code == "notAllowed")
            try inspector.send(.query(Query(what: "endSession", arguments: ["session": "b"])))
            #expect(try refusal(inspector).code == "notAllowed")
            try inspector.send(.query(Query(what: "endSession", arguments: ["session": "a"])))
            #expect(try refusal(inspector).message.contains("not act"))
            try inspector.send(.query(Query(what: "sessions")))
            let listed = try inspector.expect { message in
                if case .reply(let reply) = message { reply.result.arrayValue } else { nil }
            }
            #expect(listed.compactMap { $0.objectValue?["session"]?.stringValue } == ["a"])
            // A step injected into b, naming it in the header.
            try inspector.send(.step(StepMessage(step: Step("onboardingIsRequired"), sequence: 1)), session: "b")
            #expect(try refusal(inspector).code == "notAllowed")
        }

        // Subscriptions: the reader subscribes to b's commands and inspection stream, and to everything; nothing of b
        // reaches it, while b's presenter still gets b's commands.
        let spy = try Socket(.subscriber, context: context)
        try spy.makeCurveClient(keyPair: reader, serverKey: server.publicKey)
        for topic in ["cmd/b/", "ins/b/", "inb/b/", "", "cmd/"] {
            try spy.subscribe(topic)
        }
        try spy.connect(events[0])
        _ = try daemon.line(containing: "refused a subscription")
        _ = try stepperB.emit(Step("onboardingIsComplete"), sequence: 2)
        _ = try presenterB.expectPublished { if case .commands(let batch) = $0 { batch } else { nil } }
        #expect(try spy.receive(within: .milliseconds(500)) == nil)
        #expect(daemon.signal(SIGTERM) == 0)
    }

    @Test func grantsCoverTheirSessionsAndTheSessionsUnderThemAndTopicsThatCannotReachFurther() throws {
        let grant = try ClientGrant(parsing: "kiosk-7,lab-*:presenter,inspector")
        #expect(grant.covers("kiosk-7") && grant.covers("kiosk-7/left") && grant.covers("lab-3"))
        #expect(!grant.covers("kiosk-70") && !grant.covers("kiosk-8") && !grant.covers("la"))
        #expect(grant.allows(.presenter) && grant.allows(.inspector) && !grant.allows(.stepper))
        #expect(!grant.controls)
        // Topics: within the granted sessions only; a prefix that could reach another session is refused.
        for topic in ["cmd/kiosk-7/main", "cmd/kiosk-7/", "ins/kiosk-7/stepFate", "inb/lab-", "cmd/lab-3/x"] {
            #expect(grant.allowsSubscription(topic), "\(topic)")
        }
        for topic in ["cmd/kiosk-7", "cmd/kiosk", "ins/", "", "c", "cmd/kiosk-8/main", "xyz/kiosk-7/"] {
            #expect(!grant.allowsSubscription(topic), "\(topic)")
        }
        let everything = try ClientGrant(parsing: "*")
        #expect(everything.allowsSubscription("") && everything.allowsSubscription("ins/") && everything.controls)
        // Tried: no sessions, an unknown role.
        #expect(throws: ConfigurationError.self) { try ClientGrant(parsing: ":stepper") }
        #expect(throws: ConfigurationError.self) { try ClientGrant(parsing: "kiosk-7:admin") }
    }
}
