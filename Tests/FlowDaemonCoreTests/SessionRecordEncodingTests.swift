import FlowCore
import FlowWire
import Foundation
import Testing

@testable import FlowDaemonCore

/// A session's record writes its remembered outcomes and its waiting steps member by member, in the form `Codable`
/// gives them: what it writes reads back as it was, through FlowJSON and through Foundation alike.
@Suite struct SessionRecordEncodingTests {
    static let key = StepperKey(session: "kiosk/ü", role: .stepper, name: "app \"main\"")

    /// Tried: an accepted fate with flows and without, a dropped fate with every optional member, a refusal whose
    /// message has quotes, a line feed and an emoji, a name and a session to escape, the largest numbers that fit.
    static let sender = StoredSender(
        role: .stepper,
        name: "app \"main\"",
        lastSequence: 9,
        outcomes: [
            StoredOutcome(sequence: 4, outcome: .fate(WireFate(.accepted(flows: [FlowID(1), FlowID(3)])))),
            StoredOutcome(sequence: 5, outcome: .fate(WireFate(accepted: true, flows: []))),
            StoredOutcome(
                sequence: 6,
                outcome: .fate(
                    WireFate(
                        accepted: false,
                        flows: [],
                        reason: "notVisible",
                        presentable: PresentableID(4),
                        flow: FlowID(2),
                        parameter: "withId",
                        explanation: "p4 is \"hidden\"\n",
                        remedy: "show it ☺"
                    )
                )
            ),
            StoredOutcome(
                sequence: UInt64(Int.max),
                outcome: .refused(StepRefusal(code: .unknownStep, message: "no \"x\"\n✈"))
            ),
        ],
        pending: [10, 11]
    )

    static let waiting = [
        StoredWaitingStep(
            token: StepToken(UInt64(Int.max)),
            acknowledgement: PendingAcknowledgement(
                peer: "kiosk/ü\\1",
                stepper: key,
                sequence: 10,
                correlation: 41,
                sentAt: -5
            )
        ),
        StoredWaitingStep(
            token: StepToken(8),
            acknowledgement: PendingAcknowledgement(peer: "p", stepper: key, sequence: 11, correlation: 0, sentAt: 0)
        ),
    ]

    @Test func outcomesAndWaitingStepsReadBackAsTheyWere() throws {
        for sortedKeys in [false, true] {
            let sender = try FlowJSON.encode(Self.sender, sortedKeys: sortedKeys)
            #expect(try FlowJSON.decode(StoredSender.self, from: sender) == Self.sender)
            let waiting = try FlowJSON.encode(StoredWaitingStep.fragment(Self.waiting), sortedKeys: sortedKeys)
            #expect(try FlowJSON.decode([StoredWaitingStep].self, from: waiting) == Self.waiting)
        }
        // Through Foundation's encoder, a fragment is the value its text reads as.
        let foundation = try JSONEncoder().encode(Self.sender)
        #expect(try FlowJSON.decode(StoredSender.self, from: Array(foundation)) == Self.sender)
    }

    /// The text is the one `Codable` writes for these types (keys in declaration order, absent optionals left out).
    @Test func anOutcomeIsWrittenAsCodableWritesIt() throws {
        let sender = StoredSender(
            role: .stepper,
            name: "app",
            lastSequence: 4,
            outcomes: [StoredOutcome(sequence: 4, outcome: .fate(WireFate(.accepted(flows: [FlowID(1)]))))],
            pending: []
        )
        let expected =
            #"{"role":"stepper","name":"app","lastSequence":4,"outcomes":[{"sequence":4,"outcome":{"fate":{"_0":{"accepted":true,"flows":[1]}}}}],"pending":[]}"#
        #expect(String(decoding: try FlowJSON.encode(sender), as: UTF8.self) == expected)
        // Written by the fragment, not by Codable (which would write the same text).
        let outcomes = try #require(StoredOutcome.fragment(sender.outcomes))
        #expect(
            String(decoding: outcomes.text, as: UTF8.self)
                == #"[{"sequence":4,"outcome":{"fate":{"_0":{"accepted":true,"flows":[1]}}}}]"#
        )
        let waiting = try #require(StoredWaitingStep.fragment([Self.waiting[1]]))
        #expect(
            String(decoding: waiting.text, as: UTF8.self)
                == #"[{"token":8,"acknowledgement":{"peer":"p","stepper":{"session":"kiosk/ü","role":"stepper","name":"app \"main\""},"sequence":11,"correlation":0,"sentAt":0}}]"#
        )
    }

    /// A number beyond `Int` (a sequence a peer cannot send, but the type holds) is written by `Codable` instead.
    @Test func aNumberBeyondIntGoesThroughCodable() throws {
        let outcome = StoredOutcome(sequence: UInt64.max, outcome: .fate(WireFate(accepted: true, flows: [])))
        #expect(StoredOutcome.fragment([outcome]) == nil)
        let sender = StoredSender(role: .stepper, name: "a", lastSequence: 1, outcomes: [outcome], pending: [])
        let text = String(decoding: try FlowJSON.encode(sender), as: UTF8.self)
        #expect(text.contains(#""outcomes":[{"sequence":18446744073709551615,"outcome":{"fate":{"_0":"#))
    }
}
