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
///
/// Inlinable, as the standard library's collections are: used from another module (flowd's coordinator), it ran
/// unspecialized, looking up its type's metadata on every call (+1 500 instructions a step).
public struct SmallTable<Key: Hashable, Value> {
    /// How many entries are searched by comparing keys; past this, a hash index finds them.
    @inlinable
    public static var indexedAbove: Int { 16 }

    /// A key and its value.
    public struct Entry {
        /// The key.
        public let key: Key
        /// Its value.
        public var value: Value

        @inlinable
        init(key: Key, value: Value) {
            self.key = key
            self.value = value
        }
    }

    /// The entries.
    @usableFromInline
    var storage: [Entry] = []
    /// Where each key's entry is in ``entries``, kept only past ``indexedAbove`` entries.
    @usableFromInline
    var positions: [Key: Int]?

    /// An empty table.
    @inlinable
    public init() {}

    /// A table of `pairs`, whose keys are distinct.
    @inlinable
    public init(uniqueKeysWithValues pairs: some Sequence<(Key, Value)>) {
        for (key, value) in pairs {
            self[key] = value
        }
    }

    /// The number of entries.
    @inlinable
    public var count: Int { storage.count }

    /// Whether there is none.
    @inlinable
    public var isEmpty: Bool { storage.isEmpty }

    /// The keys, in the order of ``entries`` (a view: nothing is copied until read).
    @inlinable
    public var keys: LazyMapCollection<[Entry], Key> { storage.lazy.map { $0.key } }

    /// The values, in the order of ``entries`` (a view: each is copied as it is read).
    @inlinable
    public var values: LazyMapCollection<[Entry], Value> { storage.lazy.map { $0.value } }

    /// The same entries in a dictionary.
    @inlinable
    public var dictionary: [Key: Value] {
        Dictionary(uniqueKeysWithValues: storage.lazy.map { ($0.key, $0.value) })
    }

    /// Where `key`'s entry is in ``entries``, if it has one.
    @inlinable
    public func index(forKey key: Key) -> Int? {
        if let positions {
            return positions[key]
        }
        // Each entry's key read where it is kept (through the buffer's address): reading `storage[index].key` copied
        // the whole entry, its value's references retained and released, for every key compared.
        return storage.withUnsafeBufferPointer { buffer in
            buffer.indices.first { buffer[$0].key == key }
        }
    }

    /// The value of `key`; set to `nil`, the entry is removed.
    @inlinable
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

    /// The value at `index`, read where it is kept: `storage[index].value` copied the whole entry first.
    @inlinable @inline(__always)
    func value(at index: Int) -> Value {
        storage.withUnsafeBufferPointer { $0[index].value }
    }

    /// Reads or changes the value at `index` (from ``index(forKey:)``) where it is kept: the subscript by key
    /// copies it out (and back).
    @inlinable
    public mutating func inPlace<Result>(at index: Int, _ body: (inout Value) -> Result) -> Result {
        body(&storage[index].value)
    }

    /// Sets `key`'s value, added after the others when the key is new.
    @inlinable
    public mutating func updateValue(_ value: Value, forKey key: Key) {
        if let index = index(forKey: key) {
            storage[index].value = value
            return
        }
        storage.append(Entry(key: key, value: value))
        if positions != nil {
            positions?[key] = storage.count - 1
        } else if storage.count > Self.indexedAbove {
            indexEntries()
        }
    }

    /// Removes `key`'s entry, the others keeping their order; returns its value.
    @discardableResult
    @inlinable
    public mutating func removeValue(forKey key: Key) -> Value? {
        guard let index = index(forKey: key) else {
            return nil
        }
        let removed = storage.remove(at: index).value
        if positions != nil {
            if storage.count > Self.indexedAbove / 2 {
                indexEntries()
            } else {
                positions = nil
            }
        }
        return removed
    }

    /// Removes every entry.
    @inlinable
    public mutating func removeAll() {
        storage = []
        positions = nil
    }

    @usableFromInline
    mutating func indexEntries() {
        var positions: [Key: Int] = [:]
        positions.reserveCapacity(storage.count)
        for (index, entry) in storage.enumerated() {
            positions[entry.key] = index
        }
        self.positions = positions
    }
}

extension SmallTable: Sequence {
    /// Goes through the entries in order, each as a key and its value.
    public struct Iterator: IteratorProtocol {
        @usableFromInline
        var entries: IndexingIterator<[Entry]>

        @inlinable
        init(entries: IndexingIterator<[Entry]>) {
            self.entries = entries
        }

        @inlinable
        public mutating func next() -> (key: Key, value: Value)? {
            entries.next().map { ($0.key, $0.value) }
        }
    }

    @inlinable
    public func makeIterator() -> Iterator {
        Iterator(entries: storage.makeIterator())
    }

    @inlinable
    public var underestimatedCount: Int { storage.count }
}

extension SmallTable: ExpressibleByDictionaryLiteral {
    @inlinable
    public init(dictionaryLiteral elements: (Key, Value)...) {
        self.init(uniqueKeysWithValues: elements)
    }
}

extension SmallTable: Sendable where Key: Sendable, Value: Sendable {}
extension SmallTable.Entry: Sendable where Key: Sendable, Value: Sendable {}

extension SmallTable: Equatable where Value: Equatable {
    /// The same keys with the same values, in any order.
    @inlinable
    public static func == (lhs: SmallTable, rhs: SmallTable) -> Bool {
        guard lhs.count == rhs.count else {
            return false
        }
        return lhs.storage.allSatisfy { entry in
            rhs.index(forKey: entry.key).map { rhs.storage[$0].value == entry.value } ?? false
        }
    }
}

extension SmallTable: Hashable where Value: Hashable {
    /// Hashed as a dictionary hashes: whatever the order of the entries.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for entry in storage {
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
    @inlinable
    public func encode(to encoder: any Encoder) throws {
        try dictionary.encode(to: encoder)
    }
}

extension SmallTable: Decodable where Key: Decodable & Comparable, Value: Decodable {
    /// Read from a dictionary, in the order of the keys.
    @inlinable
    public init(from decoder: any Decoder) throws {
        let dictionary = try [Key: Value](from: decoder)
        self.init(uniqueKeysWithValues: dictionary.sorted { $0.key < $1.key }.lazy.map { ($0.key, $0.value) })
    }
}
