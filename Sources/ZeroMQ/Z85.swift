internal import CZeroMQ

/// ZeroMQ's Z85 text encoding (RFC 32/Z85): 4 bytes become 5 printable characters.
public enum Z85 {
    /// Encodes bytes whose count is a multiple of 4.
    public static func encode(_ bytes: [UInt8]) throws(ZeroMQError) -> String {
        guard bytes.count % 4 == 0 else {
            throw ZeroMQError(
                .invalidKey,
                operation: "Z85.encode",
                message: "\(bytes.count) bytes is not a multiple of 4"
            )
        }
        var text = [CChar](repeating: 0, count: bytes.count / 4 * 5 + 1)
        let encoded = text.withUnsafeMutableBufferPointer { destination in
            bytes.withUnsafeBufferPointer { source in
                zmq_z85_encode(destination.baseAddress, source.baseAddress, source.count) != nil
            }
        }
        guard encoded else {
            throw ZeroMQError(.invalidKey, operation: "zmq_z85_encode", message: "cannot encode these bytes")
        }
        return String(decoding: text.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Decodes Z85 text whose length is a multiple of 5.
    public static func decode(_ text: String) throws(ZeroMQError) -> [UInt8] {
        let characters = Array(text.utf8)
        let valid = characters.count % 5 == 0 && characters.allSatisfy { $0 >= 0x21 && $0 <= 0x7D && $0 != 0x22 }
        guard valid else {
            throw ZeroMQError(.invalidKey, operation: "Z85.decode", message: "\"\(text)\" is not Z85 text")
        }
        var bytes = [UInt8](repeating: 0, count: characters.count / 5 * 4)
        let decoded = bytes.withUnsafeMutableBufferPointer { destination in
            (characters + [0]).withUnsafeBufferPointer { source in
                source.withMemoryRebound(to: CChar.self) { zmq_z85_decode(destination.baseAddress, $0.baseAddress) }
                    != nil
            }
        }
        guard decoded else {
            throw ZeroMQError(.invalidKey, operation: "zmq_z85_decode", message: "\"\(text)\" is not Z85 text")
        }
        return bytes
    }
}
