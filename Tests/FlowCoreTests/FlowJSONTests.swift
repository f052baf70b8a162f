import FlowCore
import Foundation
import Testing

/// FlowJSON: the JSON text FlowBus writes and reads on the wire, checked against the JSON grammar (RFC 8259) and
/// against Foundation's coder, which peers written with it must keep understanding.
@Suite struct FlowJSONTests {
    private struct Sample: Codable, Equatable {
        var name: String
        var count: Int
        var ratio: Double
        var flag: Bool
        var note: String?
        var big: UInt64
        var small: Int8
        var list: [Int]
        var nested: [String: [String]]
        var value: JSONValue
    }

    private let sample = Sample(
        name: "movie \"Up\" \\ 𝄞 é\n\t\u{1}",
        count: -42,
        ratio: 0.1,
        flag: true,
        note: nil,
        big: UInt64(Int.max),
        small: -128,
        list: [1, 2, 3],
        nested: ["a": ["b", "c"]],
        value: ["id": 23452, "tags": ["x", 1.5, false, nil]]
    )

    private func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    @Test func aValueRoundTripsAndReadsTheSameAsFoundationReadsIt() throws {
        let encoded = try FlowJSON.encode(sample)
        #expect(try FlowJSON.decode(Sample.self, from: encoded) == sample)
        #expect(try JSONDecoder().decode(Sample.self, from: Data(encoded)) == sample)
        let byFoundation = try JSONEncoder().encode(sample)
        #expect(try FlowJSON.decode(Sample.self, from: byFoundation) == sample)
    }

    @Test func membersComeInDeclarationOrderOrSortedAndAbsentOptionalsAreLeftOut() throws {
        struct Ordered: Encodable {
            var zebra = 1
            var apple: String? = nil
            var mango = "m"
        }
        #expect(text(try FlowJSON.encode(Ordered())) == #"{"zebra":1,"mango":"m"}"#)
        #expect(text(try FlowJSON.encode(Ordered(), sortedKeys: true)) == #"{"mango":"m","zebra":1}"#)
        let value: JSONValue = ["b": 1, "a": ["d": 2, "c": 3]]
        #expect(text(value.jsonText(sortedKeys: true)) == #"{"a":{"c":3,"d":2},"b":1}"#)
        // Appended to a text being written, the same text follows what was there.
        var message = Array(#"{"events":["#.utf8)
        value.appendJSONText(to: &message, sortedKeys: true)
        #expect(text(message) == #"{"events":[{"a":{"c":3,"d":2},"b":1}"#)
    }

    @Test func stringsAreEscapedWhereJSONRequiresAndOnlyThere() throws {
        let written = text(try FlowJSON.encode("q\" b\\ n\n r\r t\t b\u{8} f\u{c} c\u{1f} /é𝄞"))
        #expect(written == #""q\" b\\ n\n r\r t\t b\b f\f c\u001f /é𝄞""#)
        #expect(
            try FlowJSON.decode(String.self, from: Array(written.utf8))
                == "q\" b\\ n\n r\r t\t b\u{8} f\u{c} c\u{1f} /é𝄞"
        )
    }

    @Test func numbersAreWrittenShortAndReadBackExactly() throws {
        #expect(text(try FlowJSON.encode([0.1, 1.5, 1e-7, 100.0, -2.5e300])) == "[0.1,1.5,1e-07,100.0,-2.5e+300]")
        #expect(text(try FlowJSON.encode([Int.min, Int.max, 0])) == "[-9223372036854775808,9223372036854775807,0]")
        #expect(text(try FlowJSON.encode(UInt64.max)) == "18446744073709551615")
        // Integers are kept exactly within Int's range (the protocol's); beyond, they are refused, not rounded.
        #expect(throws: DecodingError.self) {
            try FlowJSON.decode(UInt64.self, from: Array("18446744073709551615".utf8))
        }
        #expect(try FlowJSON.decode(UInt64.self, from: Array("9223372036854775807".utf8)) == UInt64(Int.max))
        #expect(try FlowJSON.decode(Double.self, from: Array("18446744073709551615".utf8)) == 1.8446744073709552e19)
        #expect(text(try FlowJSON.encode(Float(0.1))) == "0.1")
        let parsed = try JSONValue(
            parsing: Array("[0,-0,12,-9223372036854775808,9223372036854775808,1.25,2E3,1e-2]".utf8)
        )
        #expect(parsed == [0, 0, 12, .int(Int.min), .double(9_223_372_036_854_775_808), 1.25, 2000.0, 0.01])
        #expect(try FlowJSON.decode(Int.self, from: Array("3.0".utf8)) == 3)
        #expect(try FlowJSON.decode(Double.self, from: Array("3".utf8)) == 3.0)
    }

    @Test func escapesAndWhitespaceAreRead() throws {
        let parsed = try JSONValue(
            parsing: Array(" {\n\t\"a\\u00e9\\/\" : [ true , false , null , \"\\ud834\\udd1e\" ] } ".utf8)
        )
        #expect(parsed == ["aé/": [true, false, nil, "𝄞"]])
    }

    @Test func numbersJSONCannotHoldAreRefusedWhenEncoding() {
        #expect(throws: EncodingError.self) { try FlowJSON.encode(Double.infinity) }
        #expect(throws: EncodingError.self) { try FlowJSON.encode(["x": Double.nan]) }
    }

    /// Bad texts tried: empty, whitespace only, an unclosed object, array and string, a trailing comma, a missing
    /// colon, an unquoted name, a leading zero, a bare minus, a dot without digits, an exponent without digits, a
    /// misspelled literal, an unknown escape, a short and a non-hexadecimal \u escape, lone surrogates, a raw
    /// control character in a string, invalid UTF-8, text after the value, a number out of range, nesting 600
    /// deep.
    @Test(arguments: [
        ("", 0), ("   ", 3), ("{", 1), ("[1,2", 4), ("\"abc", 4), ("[1,]", 3), ("{\"a\" 1}", 5), ("{a:1}", 1),
        ("01", 1), ("-", 1), ("1.", 2), ("1e", 2), ("tru", 0), ("\"\\x\"", 2), ("\"\\u12\"", 3), ("\"\\u12G4\"", 5),
        ("\"\\ud800\"", 7), ("\"\\udc00\"", 7), ("\"a\u{1}\"", 2), ("1 2", 2), ("1e999", 0), ("{}}", 2),
    ])
    func badTextIsRefusedWithWhereItGoesWrong(text: String, offset: Int) {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: Array(text.utf8)) }
        #expect(error?.offset == offset, "\(text): \(String(describing: error))")
    }

    @Test func invalidUTF8AndDeepNestingAreRefused() {
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: [0x22, 0xFF, 0x22]) }
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: [0x22, 0x5C, 0x6E, 0xC3, 0x22]) }
        let deep = Array(String(repeating: "[", count: 600).utf8) + Array(String(repeating: "]", count: 600).utf8)
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: deep) }
        #expect(error?.reason.contains("deeper than 512") == true)
        let fine = Array(String(repeating: "[", count: 500).utf8) + Array(String(repeating: "]", count: 500).utf8)
        #expect(throws: Never.self) { try JSONValue(parsing: fine) }
    }

    /// Bad shapes tried: a missing member, a member of the wrong kind, null for a required member, a number too big
    /// for its type, a fraction for a whole number, a negative number for an unsigned one, an array too short.
    @Test func textThatDoesNotFitTheTypeSaysWhereWithItsCodingPath() throws {
        struct Inner: Decodable { var id: UInt8 }
        struct Outer: Decodable {
            var name: String
            var inner: [Inner]
        }
        func failure(_ text: String) -> DecodingError? {
            #expect(throws: DecodingError.self) { try FlowJSON.decode(Outer.self, from: Array(text.utf8)) }
        }
        func path(_ error: DecodingError?) -> String {
            switch error {
            case .keyNotFound(let key, let context)?:
                (context.codingPath + [key]).map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(
                    separator: "."
                )
            case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?, .dataCorrupted(let context)?:
                context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            default: "?"
            }
        }
        #expect(path(failure(#"{"inner":[]}"#)) == "name")
        #expect(path(failure(#"{"name":1,"inner":[]}"#)) == "name")
        #expect(path(failure(#"{"name":null,"inner":[]}"#)) == "name")
        #expect(path(failure(#"{"name":"a","inner":[{"id":1},{"id":300}]}"#)) == "inner.1.id")
        #expect(path(failure(#"{"name":"a","inner":[{"id":1.5}]}"#)) == "inner.0.id")
        #expect(path(failure(#"{"name":"a","inner":[{"id":-1}]}"#)) == "inner.0.id")
        #expect(path(failure(#"{"name":"a","inner":{"id":1}}"#)) == "inner")
        #expect(throws: DecodingError.self) { try FlowJSON.decode([Int].self, from: Array("[1,\"2\"]".utf8)) }
        struct Pair: Decodable {
            var first: Int
            var second: Int
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                first = try container.decode(Int.self)
                second = try container.decode(Int.self)
            }
        }
        #expect(throws: DecodingError.self) { try FlowJSON.decode(Pair.self, from: Array("[1]".utf8)) }
        #expect(try FlowJSON.decode(Pair.self, from: Array("[1,2]".utf8)).second == 2)
    }

    @Test func optionalsAreAbsentOrNullAndExtraMembersAreIgnored() throws {
        struct Partial: Codable, Equatable {
            var a: Int?
            var b: String?
        }
        #expect(try FlowJSON.decode(Partial.self, from: Array(#"{"a":null,"c":[1,{"d":2}]}"#.utf8)) == Partial())
        #expect(try FlowJSON.decode(Partial.self, from: Array(#"{"a":1,"b":"x"}"#.utf8)) == Partial(a: 1, b: "x"))
        #expect(try FlowJSON.decode(Int?.self, from: Array("null".utf8)) == nil)
    }

    @Test func handWrittenCodingWithNestedAndSuperContainersRoundTrips() throws {
        struct Handmade: Codable, Equatable {
            var point: (x: Int, y: Int)
            var label: String
            var base: [String]
            enum Keys: String, CodingKey { case point, label }
            enum PointKeys: String, CodingKey { case x, y }
            init(point: (Int, Int), label: String, base: [String]) {
                self.point = point
                self.label = label
                self.base = base
            }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Keys.self)
                let point = try container.nestedContainer(keyedBy: PointKeys.self, forKey: .point)
                self.point = (try point.decode(Int.self, forKey: .x), try point.decode(Int.self, forKey: .y))
                var label = try container.nestedUnkeyedContainer(forKey: .label)
                self.label = try label.decode(String.self)
                base = try [String](from: try container.superDecoder())
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                var point = container.nestedContainer(keyedBy: PointKeys.self, forKey: .point)
                try point.encode(self.point.x, forKey: .x)
                try point.encode(self.point.y, forKey: .y)
                var label = container.nestedUnkeyedContainer(forKey: .label)
                try label.encode(self.label)
                try base.encode(to: container.superEncoder())
            }
            static func == (left: Handmade, right: Handmade) -> Bool {
                left.point == right.point && left.label == right.label && left.base == right.base
            }
        }
        let value = Handmade(point: (3, -4), label: "here", base: ["a", "b"])
        let encoded = try FlowJSON.encode(value)
        #expect(text(encoded) == #"{"point":{"x":3,"y":-4},"label":["here"],"super":["a","b"]}"#)
        #expect(try FlowJSON.decode(Handmade.self, from: encoded) == value)
        #expect(
            try FlowJSON.value(of: value) == ["point": ["x": 3, "y": -4], "label": ["here"], "super": ["a", "b"]]
        )
    }

    @Test func stepsAndCommandsReadTheSameThroughFoundationAndFlowJSON() throws {
        let step = Step("movieIsPicked", ["withId": 23452, "title": "Up", "rating": 8.3])
        func screen(_ id: UInt32, _ name: String, _ parameters: JSONObject = [:]) -> PresentableDescription {
            PresentableDescription(id: PresentableID(id), style: .screen, name: name, parameters: parameters, flow: nil)
        }
        let commands: [NavigationCommand] = [
            .setWindowRoot(PresentableDescription(id: PresentableID(1), style: .stack, name: "main", flow: FlowID(1))),
            .push(screen(2, "Detail", ["id": 7]), onto: PresentableID(1)),
            .setTabs(PresentableID(3), [screen(4, "A")], selected: 0),
            .pop(stack: PresentableID(1), to: PresentableID(2)),
        ]
        #expect(try FlowJSON.decode(Step.self, from: JSONEncoder().encode(step)) == step)
        #expect(try JSONDecoder().decode(Step.self, from: Data(FlowJSON.encode(step))) == step)
        #expect(try FlowJSON.decode([NavigationCommand].self, from: JSONEncoder().encode(commands)) == commands)
        #expect(try JSONDecoder().decode([NavigationCommand].self, from: Data(FlowJSON.encode(commands))) == commands)
    }
}
