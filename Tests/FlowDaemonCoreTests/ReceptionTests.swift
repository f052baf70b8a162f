import FlowCore
import FlowDaemonCore
import FlowWire
import Testing

/// What `receive` answers beside its messages: with CURVE, the connection to cut when a key spoke under another
/// key's id or under an id no key has; nothing for a key under its own id, or without CURVE.
@Suite struct ReceptionTests {
    func reception(from peer: String, key: String?, curve: Bool = true) throws -> Reception {
        let keys = ["kiosk/app": "unused", "kiosk/other": "unused"]
        var bus = try Bus {
            if curve {
                $0.curve = CurveSettings(secretKey: "unused", authorizedKeys: keys)
            }
        }
        let hello = Hello(role: .stepper, id: peer, name: "app", session: "kiosk")
        let frames = bus.codec.encode(
            Envelope(header: Header(id: 1, session: "kiosk", sentAt: 0), message: .hello(hello))
        )
        return bus.coordinator.receive(frames, from: peer, userID: key, now: bus.now)
    }

    func replies(in reception: Reception, to peer: String) -> Int {
        reception.messages.filter { if case .toPeer(peer, _) = $0 { true } else { false } }.count
    }

    @Test func aKeyUnderItsOwnIdIsNotCut() throws {
        let own = try reception(from: "kiosk/app", key: "kiosk/app")
        #expect(own.impostor == nil)
        #expect(replies(in: own, to: "kiosk/app") == 1, "its WELCOME")
    }

    @Test func aKeyUnderAnotherKeysIdIsCutAndThatKeyNamed() throws {
        let taken = try reception(from: "kiosk/app", key: "kiosk/other")
        #expect(taken.impostor == .key("kiosk/other"))
        #expect(replies(in: taken, to: "kiosk/app") == 1, "its refusal goes out before the cut")
    }

    @Test func anIdNoKeyHasIsCut() throws {
        let unknown = try reception(from: "kiosk/nobody", key: "kiosk/nobody")
        #expect(unknown.impostor == .unknownID)
    }

    @Test func withoutCurveNobodyIsCut() throws {
        let plain = try reception(from: "kiosk/app", key: nil, curve: false)
        #expect(plain.impostor == nil)
    }
}
