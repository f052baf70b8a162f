import FlowCore
import Foundation
import Testing

/// The table a session keeps its flows, screens, visibilities and window roots in: a dictionary's behaviour (set,
/// read, replace, remove, look up past the size where it searches by halves), a dictionary's coding, equality and
/// hash whatever order the keys came in, and its own promise: entries are in the order of their keys.
@Suite struct SmallTableTests {
    @Test func entriesAreInTheOrderOfTheirKeys() {
        var table: SmallTable<String, Int> = ["c": 3, "a": 1]
        table["b"] = 2
        table["a"] = 10
        table["d"] = 4
        #expect(table.keys.elementsEqual(["a", "b", "c", "d"]))
        #expect(table.values.elementsEqual([10, 2, 3, 4]))
        table["d"] = nil
        #expect(table.removeValue(forKey: "b") == 2)
        #expect(table.removeValue(forKey: "b") == nil)
        table["a"] = nil
        table["nothing"] = nil
        #expect(table.map(\.key) == ["c"])
        #expect(table.count == 1 && !table.isEmpty && table["c"] == 3 && table["a"] == nil && table["d"] == nil)
        table.removeAll()
        #expect(table.isEmpty && table["c"] == nil)
    }

    @Test func aValueIsChangedInPlace() {
        var table: SmallTable<Int, [Int]> = [1: [1], 2: [2]]
        let index = table.index(forKey: 2)
        #expect(index == 1)
        let count = table.inPlace(at: index ?? 0) { value in
            value.append(3)
            return value.count
        }
        #expect(count == 2 && table[2] == [2, 3] && table.index(forKey: 3) == nil)
    }

    /// Thousands of random sets and removals of up to 60 keys, the table always reading as a dictionary that had the
    /// same done to it, its keys in order: below, at and past the size where it searches by halves (16), and back.
    @Test func itReadsAsADictionaryThroughSetsAndRemovalsOfEverySize() {
        var generator = SeededGenerator(seed: 42)
        var table = SmallTable<Int, Int>()
        var model: [Int: Int] = [:]
        var largest = 0
        for round in 0..<6000 {
            // Phases that grow and phases that shrink, so that the index is made and dropped again and again.
            let growing = (round / 500) % 2 == 0
            let key = Int.random(in: 0..<60, using: &generator)
            // Four in five are sets while growing, removals while shrinking.
            let setting = Int.random(in: 0..<5, using: &generator) < (growing ? 4 : 1)
            if setting {
                table[key] = round
                model[key] = round
            } else {
                #expect(table.removeValue(forKey: key) == model.removeValue(forKey: key))
            }
            largest = max(largest, model.count)
            #expect(table.count == model.count)
            for probe in 0..<60 {
                #expect(table[probe] == model[probe])
            }
            #expect(table.keys.elementsEqual(model.keys.sorted()))
        }
        #expect(largest > 2 * SmallTable<Int, Int>.searchedInTurnUpTo)
        #expect(table.dictionary == model)
    }

    @Test func itIsCodedAsADictionary() throws {
        let table: SmallTable<PresentableID, String> = [PresentableID(7): "seven", PresentableID(2): "two"]
        let dictionary: [PresentableID: String] = [PresentableID(7): "seven", PresentableID(2): "two"]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let written = try encoder.encode(table)
        #expect(written == (try encoder.encode(dictionary)))
        #expect(String(decoding: written, as: UTF8.self) == #"{"2":"two","7":"seven"}"#)
        let read = try JSONDecoder().decode(SmallTable<PresentableID, String>.self, from: written)
        #expect(read.keys.elementsEqual([PresentableID(2), PresentableID(7)]))
        #expect(table.keys.elementsEqual([PresentableID(2), PresentableID(7)]))
        #expect(read == table)
        // Keys that are not ids, written as a dictionary writes them.
        let named: SmallTable<PresenterID, Int> = ["main": 1, "side": 2]
        let roundTrip = try JSONDecoder().decode(
            SmallTable<PresenterID, Int>.self,
            from: try encoder.encode(named)
        )
        #expect(roundTrip == named)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(SmallTable<PresentableID, String>.self, from: Data(#"["2","two"]"#.utf8))
        }
    }

    @Test func tablesOfTheSameEntriesAreEqualAndHashAlikeWhateverTheirOrder() {
        let forward: SmallTable<String, Int> = ["a": 1, "b": 2, "c": 3]
        let backward: SmallTable<String, Int> = ["c": 3, "b": 2, "a": 1]
        #expect(forward == backward)
        #expect(forward.hashValue == backward.hashValue)
        #expect(forward != ["a": 1, "b": 2, "c": 4])
        #expect(forward != ["a": 1, "b": 2, "d": 3])
        #expect(forward != ["a": 1, "b": 2])
        #expect(Set([forward, backward]).count == 1)
    }
}

/// A deterministic random number generator (SplitMix64): the same run on every machine.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
