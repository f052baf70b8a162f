import FlowCore
import Testing

@testable import FlowJSON

/// FlowJSON writes most values straight as text (the stream encoder) and falls back to a tree of nodes for what
/// the stream does not follow. Both must give the same bytes for every value, and the same errors.
@Suite struct StreamEncoderTests {
    private enum Choice: Codable, Equatable {
        case none
        case one(Step)
        case pair(first: Int, second: String?)
        case nested([Choice])
    }

    private struct Wide: Codable, Equatable {
        var choices: [Choice]
        var table: [String: [Int]]
        var byNumber: [Int: String]
        var optionalList: [Int?]
        var empty: [String: Int]
        var emptyList: [Int]
        var unsigned: UInt64
        var small: [Int8]
        var float: Float
        var value: JSONValue
        var steps: [Step]
        var screens: ScreenTree
    }

    /// An encodable that encodes nothing: `{}`, as from the tree.
    private struct Nothing: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    /// Asks for a container twice (a class and its subclass do): the same object continues.
    private struct Twice: Encodable {
        enum Keys: String, CodingKey { case a, b }
        func encode(to encoder: any Encoder) throws {
            var first = encoder.container(keyedBy: Keys.self)
            try first.encode(1, forKey: .a)
            var second = encoder.container(keyedBy: Keys.self)
            try second.encode(2, forKey: .b)
        }
    }

    /// Uses a nested container after its parent went on: the stream cannot follow, the tree can.
    private struct OutOfOrder: Encodable {
        enum Keys: String, CodingKey { case a, b, x }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var a = container.nestedContainer(keyedBy: Keys.self, forKey: .a)
            var b = container.nestedContainer(keyedBy: Keys.self, forKey: .b)
            try b.encode(2, forKey: .x)
            try a.encode(1, forKey: .x)
        }
    }

    /// The same text both ways; and, unless `fallsBack`, written by the stream itself (not through the tree).
    private func sameText(_ value: some Encodable, fallsBack: Bool = false) throws {
        let stream = StreamEncoding()
        try? stream.encodeRoot(value)
        #expect(stream.unsupported == fallsBack, "the stream \(fallsBack ? "followed" : "did not follow") \(value)")
        let streamed = try FlowJSON.encode(value)
        let throughNodes = try FlowJSON.encodeThroughNodes(value)
        #expect(String(decoding: streamed, as: UTF8.self) == String(decoding: throughNodes, as: UTF8.self))
    }

    /// Tried: enums with and without associated values, nested arrays of them, dictionaries keyed by strings and by
    /// integers, optionals in arrays, empty containers, numbers of every width, a float, JSON values, steps, a screen
    /// tree, values that encode nothing, containers asked for twice, containers used out of order, the top level a
    /// plain value.
    @Test func everyShapeIsWrittenAsTheTreeWritesIt() throws {
        var screens = ScreenTree()
        let root = PresentableDescription(
            id: PresentableID(1),
            style: .stack,
            name: "app",
            parameters: ["k": 1],
            flow: FlowID(1)
        )
        try screens.apply(.setWindowRoot(root), for: "main")
        try screens.apply(
            .push(
                PresentableDescription(id: PresentableID(2), style: .screen, name: "Detail", flow: nil),
                onto: PresentableID(1)
            ),
            for: "main"
        )
        let wide = Wide(
            choices: [
                .none, .one(Step("tick", ["n": 1])), .pair(first: 2, second: nil),
                .nested([.none, .pair(first: 3, second: "x")]),
            ],
            table: ["a": [1, 2], "b": []],
            byNumber: [1: "one", 20: "twenty"],
            optionalList: [1, nil, 3],
            empty: [:],
            emptyList: [],
            unsigned: UInt64.max,
            small: [-128, 127],
            float: 0.1,
            value: ["list": [1, "two", nil, true, 2.5], "object": ["deep": ["x": -1]]],
            steps: [Step("a"), Step("b", ["p": "q\n\"r\""])],
            screens: screens
        )
        try sameText(wide)
        try sameText(Nothing())
        try sameText([Nothing(), Nothing()])
        try sameText(Twice())
        try sameText(OutOfOrder(), fallsBack: true)
        try sameText("plain")
        try sameText(42)
        try sameText([Choice.none])
        try sameText(Optional<Int>.none)
        #expect(String(decoding: try FlowJSON.encode(OutOfOrder()), as: UTF8.self) == #"{"a":{"x":1},"b":{"x":2}}"#)
        // Read back too (FlowJSON reads integers above Int.max as doubles: the round trip takes a smaller one).
        var readable = wide
        readable.unsigned = UInt64(Int.max)
        #expect(try FlowJSON.decode(Wide.self, from: try FlowJSON.encode(readable)) == readable)
    }

    @Test func aNumberJSONCannotHoldIsRefusedWithItsPath() {
        struct Holder: Encodable { let values: [Double] }
        #expect {
            try FlowJSON.encode(Holder(values: [1, .infinity]))
        } throws: { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["values", "Index 1"]
                || context.codingPath.count == 2
        }
    }
}
