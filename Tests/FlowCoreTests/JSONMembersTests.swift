import FlowCore
import Testing

/// Members given one by one: written straight as text (JSONObjectWriter) or collected into a value
/// (JSONObjectBuilder), the same object either way.
@Suite struct JSONMembersTests {
    /// One form, written against JSONMembers: strings to escape, numbers, nested objects, any value.
    private func sample<Members: JSONMembers>(_ members: inout Members) {
        members.member("name", "movie \"Up\" \\ é\n")
        members.member("count", -42)
        members.member("step") { step in
            step.member("name", "movieIsPicked")
            step.member("parameters", ["withId": 7])
            step.member("empty") { _ in }
        }
        members.member("flows", [1, 2])
        members.member("none", .null)
    }

    private func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Text is looked at 8 bytes at a time for what needs escaping: each character that does (a control character,
    /// `"`, `\\`) is tried at every position of a 20-byte text, and those around them that do not (space, `!`, `#`,
    /// `[`, `]`, DEL, `é`) are written as they are.
    @Test func everyCharacterToEscapeIsFoundWhereverItIs() throws {
        func escaped(_ text: String) -> String {
            var result = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                case "\r": result += "\\r"
                case "\t": result += "\\t"
                case "\u{08}": result += "\\b"
                case "\u{0C}": result += "\\f"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: result.unicodeScalars.append(scalar)
                }
            }
            return result + "\""
        }
        let special: [Unicode.Scalar] = ["\u{00}", "\u{01}", "\u{1F}", "\"", "\\", "\n", "\t"]
        let plain: [Unicode.Scalar] = [" ", "!", "#", "[", "]", "\u{7F}", "é"]
        for scalar in special + plain {
            for position in 0..<20 {
                var sample = String(repeating: "a", count: 20)
                let index = sample.index(sample.startIndex, offsetBy: position)
                sample.replaceSubrange(index...index, with: String(scalar))
                var writer = JSONObjectWriter()
                writer.member("t", sample)
                #expect(text(writer.finished()) == "{\"t\":\(escaped(sample))}")
            }
        }
    }

    /// Members written once and used as the start of many objects: the writer goes on after them.
    @Test func aWriterGoesOnAfterMembersWrittenBefore() {
        var start = JSONObjectWriter()
        start.member("v", 3)
        start.member("peer", "kiosk/app")
        let open = Array(start.finished().dropLast())
        for sequence in 1...3 {
            var entry = JSONObjectWriter(continuing: open, capacity: 64)
            entry.member("sequence", sequence)
            #expect(text(entry.finished()) == #"{"v":3,"peer":"kiosk/app","sequence":"# + "\(sequence)}")
        }
    }

    /// A writer is a value: a copy goes on apart from the original, whether or not either has to grow (they share
    /// their text until one of them writes; without the check that it is not shared, the second overwrites the
    /// first's members in the same storage).
    @Test func aCopiedWriterGoesOnApartFromTheOriginal() {
        for capacity in [4, 1024] {
            var original = JSONObjectWriter(capacity: capacity)
            original.member("shared", 1)
            var copy = original
            original.member("original", "first")
            copy.member("copy", 2)
            copy.member("more", "text")
            original.member("last", 3)
            #expect(text(original.finished()) == #"{"shared":1,"original":"first","last":3}"#)
            #expect(text(copy.finished()) == #"{"shared":1,"copy":2,"more":"text"}"#)
        }
    }

    /// Text with nothing to escape is written in one piece however long it is: 100 000 bytes as a member, as an
    /// element of an array, and as a key, starting from a writer with room for 4.
    @Test func longTextWithNothingToEscapeComesOutWhole() throws {
        let long = String(repeating: "abcdefghij", count: 10_000)
        var writer = JSONObjectWriter(capacity: 4)
        writer.member("text", long)
        writer.member("array", .array([.string(long), .int(7)]))
        writer.member(named: long, .string("key"))
        let object = try #require(try JSONValue(parsing: writer.finished()).objectValue)
        #expect(object["text"] == .string(long))
        #expect(object["array"] == .array([.string(long), .int(7)]))
        #expect(object[long] == .string("key"))
    }

    /// Whole numbers are written two digits at a time: tried at each length from 1 to 19 digits, at the edges of a
    /// pair (9, 10, 99, 100, 101, 999, 1000), and at Int's limits.
    @Test func wholeNumbersAreWrittenDigitForDigit() throws {
        var numbers = [0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 1001, 9999, 10_000, Int.max, Int.min, -1, -10, -100]
        var power = 1
        for _ in 1...18 {
            power *= 10
            numbers += [power - 1, power, power + 7, -(power + 3)]
        }
        for number in numbers {
            var writer = JSONObjectWriter()
            writer.member("n", number)
            #expect(text(writer.finished()) == "{\"n\":\(number)}")
        }
        // Beyond Int: unsigned numbers of 20 digits, and at the edge of the widest step of the digit count.
        let unsigned: [UInt64] = [.max, 10_000_000_000_000_000_000, 10_000_000_000_000_000, 9_999_999_999_999_999]
        #expect(text(try FlowJSON.encode(unsigned)) == "[" + unsigned.map(String.init).joined(separator: ",") + "]")
    }

    /// Short text is copied as two words that may overlap: plain strings of every length from 0 to 40, as members
    /// (with names of 1 to 20 bytes, the literals of a real form) and as elements, come out whole.
    @Test func plainTextOfEveryShortLengthComesOutWhole() throws {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN")
        for length in 0...40 {
            let plain = String(letters.prefix(length))
            var writer = JSONObjectWriter()
            writer.member("t", plain)
            writer.member("presentable", plain)
            writer.member("aNameOfTwentyLetters", plain)
            writer.member("list", .array([.string(plain)]))
            #expect(
                text(writer.finished())
                    == #"{"t":"\#(plain)","presentable":"\#(plain)","aNameOfTwentyLetters":"\#(plain)","list":["\#(plain)"]}"#
            )
        }
    }

    @Test func theWriterAndTheBuilderGiveTheSameObject() throws {
        var writer = JSONObjectWriter()
        sample(&writer)
        let written = writer.finished()
        #expect(
            text(written)
                == #"{"name":"movie \"Up\" \\ é\n","count":-42,"step":{"name":"movieIsPicked","parameters":{"withId":7},"empty":{}},"flows":[1,2],"none":null}"#
        )
        let built = JSONObjectBuilder.object { sample(&$0) }
        #expect(try JSONValue(parsing: written) == .object(built))
    }

    /// A list of objects written element by element into one text (each element reuses the writer).
    @Test func anArrayOfObjectsIsWrittenElementByElement() throws {
        var list = JSONArrayWriter(capacity: 4)
        #expect(list.count == 0)
        for index in 0..<3 {
            list.object { entry in
                entry.member("index", index)
                entry.member("fields", jsonText: Array(#"{"raw":true}"#.utf8))
            }
        }
        #expect(list.count == 3)
        let text = list.finished()
        #expect(
            self.text(text)
                == #"[{"index":0,"fields":{"raw":true}},{"index":1,"fields":{"raw":true}},{"index":2,"fields":{"raw":true}}]"#
        )
        #expect(try JSONValue(parsing: text).arrayValue?.count == 3)
        #expect(self.text(JSONArrayWriter().finished()) == "[]")
        var empties = JSONArrayWriter()
        empties.object { _ in }
        empties.object { _ in }
        #expect(self.text(empties.finished()) == "[{},{}]")
    }

    @Test func keysThatAreNotLiteralsAreEscapedAndObjectsCanBeSorted() throws {
        var writer = JSONObjectWriter()
        writer.member(named: "a \"quoted\" key", 1)
        writer.member("sorted", ["b": 1, "a": ["d": 2, "c": 3]], sortedKeys: true)
        #expect(text(writer.finished()) == #"{"a \"quoted\" key":1,"sorted":{"a":{"c":3,"d":2},"b":1}}"#)
    }

    /// Text longer than the writer's first capacity comes out whole and in order: a long string, many members, a
    /// long list of objects, and a value appended to a text of 100 000 bytes, which is kept byte for byte before it.
    @Test func textLongerThanTheFirstCapacityComesOutWhole() throws {
        let long = String(repeating: "long \"text\" ", count: 100)
        var writer = JSONObjectWriter(capacity: 4)
        writer.member("text", long)
        for index in 0..<500 {
            writer.member(named: "key\(index)", .int(index))
        }
        let written = writer.finished()
        let object = try #require(try JSONValue(parsing: written).objectValue)
        #expect(object["text"] == .string(long))
        #expect(object.count == 501)
        #expect(object["key499"] == .int(499))
        #expect(written.last == UInt8(ascii: "}"))

        // A list of 200 objects, each holding the long text, from a list with room for 4.
        var list = JSONArrayWriter(capacity: 4)
        for index in 0..<200 {
            list.object {
                $0.member("index", index)
                $0.member("text", long)
            }
        }
        let elements = try #require(try JSONValue(parsing: list.finished()).arrayValue)
        #expect(elements.count == 200)
        #expect(elements[199] == .object(["index": 199, "text": .string(long)]))

        // Appended to a text of 100 000 bytes: the text before is kept as it was, the value follows it.
        let before = Array(repeating: UInt8(ascii: " "), count: 100_000)
        var text = before
        JSONValue.string(long).appendJSONText(to: &text)
        #expect(Array(text.prefix(before.count)) == before)
        #expect(Array(text.dropFirst(before.count)) == JSONValue.string(long).jsonText())
    }
}
