import FlowCore
import FlowWire

/// What reading a hostile body costs flowd: the codec decoding STEP bodies of the largest size flowd takes (64 KiB)
/// shaped to be expensive, per message and per byte. The per-byte figure is what `peerByteRate` is set against.
enum HostileBodyBenchmarks {
    /// One figure per shape: microseconds to decode one body, and nanoseconds per byte.
    static func cost(size: Int = 64 * 1024, rounds: Int = 50) -> [Result] {
        let codec = WireCodec(maxBodySize: size + 1024)
        let header = Array("{\"id\":1,\"sentAt\":0}".utf8)
        let shapes: [(String, String)] = [
            ("numbers", "[" + Array(repeating: "1", count: size / 2 - 40).joined(separator: ",") + "]"),
            ("keys", "{" + (0..<(size / 12)).map { "\"k\($0)\":1" }.joined(separator: ",") + "}"),
            ("escaped string", "\"" + String(repeating: "\\u00e9", count: size / 6 - 20) + "\""),
            ("empty objects", "[" + Array(repeating: "{}", count: size / 3 - 40).joined(separator: ",") + "]"),
        ]
        return shapes.map { name, value in
            let body = Array("{\"step\":{\"name\":\"x\",\"parameters\":{\"a\":\(value)}},\"sequence\":1}".utf8)
            let frames = [WireCodec.protocolFrame, Array("STEP".utf8), header, body]
            let clock = ContinuousClock()
            let started = clock.now
            for _ in 0..<rounds {
                _ = try? codec.decode(frames)
            }
            let seconds = (clock.now - started).seconds / Double(rounds)
            return Result(
                name: "hostile body decode, \(name)",
                value: seconds * 1_000_000,
                unit: "µs",
                detail: "\(body.count) bytes: \(String(format: "%.1f", seconds * 1e9 / Double(body.count))) ns per byte"
            )
        }
    }
}
