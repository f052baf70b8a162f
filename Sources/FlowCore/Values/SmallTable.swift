/// A table of keys and values for the few entries a session holds of each kind (its flows, screens, visibilities,
/// window roots): a list in the order the keys came, searched by comparing keys, and past
/// ``SmallTable/indexedAbove`` entries also a hash index into it.
///
/// A dictionary of one entry takes 100 to 300 bytes (its storage's header, a bitmap and room for more than it holds)
/// and every lookup hashes its key; an idle session held five. This list takes its header and its entries, and a
/// lookup among a few entries compares a few keys.
///
/// Coded, compared and hashed as a dictionary of the same entries: order does not matter, and a table reads what a
/// dictionary wrote (a session's snapshot is the same either way). Read back, entries are in the order of their keys.
public struct SmallTable<Key: Hashable, Value> {
    /// How many entries are searched by comparing keys; past this, a hash index finds them.
    public static var indexedAbove: Int { 16 }

    /// A key and its value.
    public struct Entry {
        /// The key.
        public let key: Key
        /// Its value.
        public fileprivate(set) var value: Value
    }

    /// The entries, in the order their keys were first set.
    public private(set) var entries: [Entry] = []
    /// Where each key's entry is in ``entries``, kept only past ``indexedAbove`` entries.
    private var positions: [Key: Int]?

    /// An empty table.
    public init() {}

    /// A table of `pairs`, whose keys are distinct.
    public init(uniqueKeysWithValues pairs: some Sequence<(Key, Value)>) {
        for (key, value) in pairs {
            self[key] = value
        }
    }

    /// The number of entries.
    public var count: Int { entries.count }

    /// Whether there is none.
    public var isEmpty: Bool { entries.isEmpty }

    /// The keys, in the order of ``entries`` (a view: nothing is copied until read).
    public var keys: LazyMapCollection<[Entry], Key> { entries.lazy.map { $0.key } }

    /// The values, in the order of ``entries`` (a view: each is copied as it is read).
    public var values: LazyMapCollection<[Entry], Value> { entries.lazy.map { $0.value } }

    /// The same entries in a dictionary.
    public var dictionary: [Key: Value] {
        Dictionary(uniqueKeysWithValues: entries.lazy.map { ($0.key, $0.value) })
    }

    /// Where `key`'s entry is in ``entries``, if it has one.
    public func index(forKey key: Key) -> Int? {
        if let positions {
            return positions[key]
        }
        // Each entry's key read where it is kept (through the buffer's address): reading `entries[index].key` copied
        // the whole entry, its value's references retained and released, for every key compared.
        return entries.withUnsafeBufferPointer { buffer in
            buffer.indices.first { buffer[$0].key == key }
        }
    }

    /// The value of `key`; set to `nil`, the entry is removed.
    public subscript(key: Key) -> Value? {
        // Inlined where it is read: a caller that reads one member, or only asks whether there is a value, then
        // copies no more than that (out of line, each read copied the whole value).
        @inline(__always)
        get {
            guard let index = index(forKey: key) else {
                return nil
            }
            return value(at: index)
        }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// The value at `index`, read where it is kept: `entries[index].value` copied the whole entry first.
    @inline(__always)
    private func value(at index: Int) -> Value {
        entries.withUnsafeBufferPointer { $0[index].value }
    }

    /// Reads or changes the value at `index` (from ``index(forKey:)``) where it is kept: the subscript by key
    /// copies it out (and back).
    public mutating func inPlace<Result>(at index: Int, _ body: (inout Value) -> Result) -> Result {
        body(&entries[index].value)
    }

    /// Sets `key`'s value, added after the others when the key is new.
    public mutating func updateValue(_ value: Value, forKey key: Key) {
        if let index = index(forKey: key) {
            entries[index].value = value
            return
        }
        entries.append(Entry(key: key, value: value))
        if positions != nil {
            positions?[key] = entries.count - 1
        } else if entries.count > Self.indexedAbove {
            indexEntries()
        }
    }

    /// Removes `key`'s entry, the others keeping their order; returns its value.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        guard let index = index(forKey: key) else {
            return nil
        }
        let removed = entries.remove(at: index).value
        if positions != nil {
            if entries.count > Self.indexedAbove / 2 {
                indexEntries()
            } else {
                positions = nil
            }
        }
        return removed
    }

    /// Removes every entry.
    public mutating func removeAll() {
        entries = []
        positions = nil
    }

    private mutating func indexEntries() {
        var positions: [Key: Int] = [:]
        positions.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            positions[entry.key] = index
        }
        self.positions = positions
    }
}

extension SmallTable: Sequence {
    /// Goes through the entries in order, each as a key and its value.
    public struct Iterator: IteratorProtocol {
        fileprivate var entries: IndexingIterator<[Entry]>

        public mutating func next() -> (key: Key, value: Value)? {
            entries.next().map { ($0.key, $0.value) }
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(entries: entries.makeIterator())
    }

    public var underestimatedCount: Int { entries.count }
}

extension SmallTable: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (Key, Value)...) {
        self.init(uniqueKeysWithValues: elements)
    }
}

extension SmallTable: Sendable where Key: Sendable, Value: Sendable {}
extension SmallTable.Entry: Sendable where Key: Sendable, Value: Sendable {}

extension SmallTable: Equatable where Value: Equatable {
    /// The same keys with the same values, in any order.
    public static func == (lhs: SmallTable, rhs: SmallTable) -> Bool {
        guard lhs.count == rhs.count else {
            return false
        }
        return lhs.entries.allSatisfy { entry in
            rhs.index(forKey: entry.key).map { rhs.entries[$0].value == entry.value } ?? false
        }
    }
}

extension SmallTable: Hashable where Value: Hashable {
    /// Hashed as a dictionary hashes: whatever the order of the entries.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for entry in entries {
            var entryHasher = Hasher()
            entryHasher.combine(entry.key)
            entryHasher.combine(entry.value)
            combined ^= entryHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

extension SmallTable: Encodable where Key: Encodable, Value: Encodable {
    /// Written as a dictionary of the same entries.
    public func encode(to encoder: any Encoder) throws {
        try dictionary.encode(to: encoder)
    }
}

extension SmallTable: Decodable where Key: Decodable & Comparable, Value: Decodable {
    /// Read from a dictionary, in the order of the keys.
    public init(from decoder: any Decoder) throws {
        let dictionary = try [Key: Value](from: decoder)
        self.init(uniqueKeysWithValues: dictionary.sorted { $0.key < $1.key }.lazy.map { ($0.key, $0.value) })
    }
}
