import FlowCore
import FlowWire

/// What flowfuzz checks on every input. The first byte chooses the target; the rest is its data:
/// - even: the JSON parser. Whatever the bytes, parsing returns or throws; a value it returns, written out and read
///   again, is the same value.
/// - odd: the wire codec. The data is split into frames at each 0x1F byte; decoding returns or throws; an envelope
///   it returns, encoded and decoded again, is the same envelope.
/// A broken property stops the program (`fatalError`), which libFuzzer reports with the input.
enum FuzzTargets {
    /// The byte that separates frames in a codec input.
    static let frameSeparator: UInt8 = 0x1F

    static let codec = WireCodec(maxBodySize: 64 * 1024)

    /// Runs one input through its target.
    static func run(_ input: [UInt8]) {
        guard let selector = input.first else { return }
        let data = Array(input.dropFirst())
        if selector % 2 == 0 {
            json(data)
        } else {
            wire(data)
        }
    }

    static func json(_ data: [UInt8]) {
        guard let value = try? JSONValue(parsing: data, maximumDepth: WireLimits.maxNesting) else { return }
        let text = value.jsonText()
        guard let again = try? JSONValue(parsing: text, maximumDepth: WireLimits.maxNesting) else {
            fatalError("the parser refused what the writer wrote: \(String(decoding: text.prefix(200), as: UTF8.self))")
        }
        guard again == value else {
            fatalError("a value changed written and read again: \(String(decoding: text.prefix(200), as: UTF8.self))")
        }
    }

    static func wire(_ data: [UInt8]) {
        let frames = data.split(separator: frameSeparator, omittingEmptySubsequences: false).map(Array.init)
        guard let envelope = try? codec.decode(frames) else { return }
        let encoded = codec.encode(envelope)
        guard let again = try? codec.decode(encoded) else {
            fatalError("the codec refused what it encoded: \(envelope.message.type.rawValue)")
        }
        guard again == envelope else {
            fatalError("an envelope changed encoded and decoded again: \(envelope.message.type.rawValue)")
        }
    }

    /// The input that runs `frames` through the codec.
    static func wireInput(_ frames: [[UInt8]]) -> [UInt8] {
        [1] + Array(frames.joined(separator: [frameSeparator]))
    }
}
