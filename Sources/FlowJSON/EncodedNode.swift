/// What an `Encodable` value encodes to, before it is written: objects keep their members in the order they
/// were encoded (a struct's declaration order), so the same value always gives the same text.
enum EncodedNode {
    case value(JSONValue)
    /// An unsigned number above `Int.max` (JSONValue has no room for it).
    case unsigned(UInt64)
    case object(EncodedObject)
    case array(EncodedArray)
    /// A super encoder's value, known once the encoding is over.
    case deferred(NodeEncoder)

    /// The node as a JSONValue (an unsigned number above `Int.max` becomes a double).
    var jsonValue: JSONValue {
        switch self {
        case .value(let value): value
        case .unsigned(let value): .double(Double(value))
        case .object(let object):
            .object(Dictionary(object.members.map { ($0.key, $0.node.jsonValue) }, uniquingKeysWith: { $1 }))
        case .array(let array): .array(array.elements.map(\.jsonValue))
        case .deferred(let encoder): encoder.result.jsonValue
        }
    }
}

/// An object being encoded: keyed containers share it and append to it.
final class EncodedObject {
    var members: [(key: String, node: EncodedNode)] = []
}

/// An array being encoded: unkeyed containers share it and append to it.
final class EncodedArray {
    var elements: [EncodedNode] = []
}

extension JSONTextWriter {
    mutating func write(_ node: EncodedNode) {
        switch node {
        case .value(let value): write(value)
        case .unsigned(let value): write(value)
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            let members = sortedKeys ? object.members.sorted { $0.key < $1.key } : object.members
            for (index, member) in members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(member.key)
                bytes.append(UInt8(ascii: ":"))
                write(member.node)
            }
            bytes.append(UInt8(ascii: "}"))
        case .array(let array):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in array.elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .deferred(let encoder): write(encoder.result)
        }
    }
}
