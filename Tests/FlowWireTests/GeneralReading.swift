import Testing

@testable import FlowWire

/// What the codec makes of frames its fast path leaves to the general reader: either an error that says `expected`,
/// or — the message being valid after all (`null` for an optional member, an escaped key...), `expected` empty —
/// the envelope the general reader reads.
func expectTheGeneralReading(
    of frames: [[UInt8]],
    by codec: WireCodec,
    saying expected: String,
    general: () throws -> Envelope
) throws {
    let envelope: Envelope
    do {
        envelope = try codec.decode(frames)
    } catch {
        #expect(!expected.isEmpty && error.message.contains(expected), "\(error.message)")
        return
    }
    #expect(expected.isEmpty, "read \(envelope), expected an error saying \(expected)")
    #expect(envelope == (try general()))
}
