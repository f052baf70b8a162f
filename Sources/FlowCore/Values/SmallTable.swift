/// A table of keys and values for the few entries a session holds of each kind (its flows, screens, visibilities,
/// window roots, COMMANDS sequences): a list in the order of its keys, searched by comparing keys one after another,
/// and past ``SmallTable/searchedInTurnUpTo`` entries by halves.
///
/// A dictionary of one entry takes 100 to 300 bytes (its storage's header, a bitmap and room for more than it holds)
/// and every lookup hashes its key; an idle session held five. This list takes its header and its entries (the table
/// itself is one word), and a lookup among a few entries compares a few keys. A session's ids are given in increasing
/// order, so a new one goes at the end.
///
/// Coded, compared and hashed as a dictionary of the same entries: a table reads what a dictionary wrote (a session's
/// snapshot is the same either way).
///
/// Inlinable, as the standard library's collections are: used from another module (flowd's coordinator), it ran
/// unspecialized, looking up its type's metadata on every call (+1 500 instructions a step).
public struct SmallTable<Key: Hashable & Comparable, Value> {
    /// How many entries are searched one after another; past this, by halves.
    @inlinable
    public static var searchedInTurnUpTo: Int { 16 }

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

    /// The entries, in the order of their keys.
    @usableFromInline
    var storage: [Entry] = []

    /// The entries, in the order of their keys.
    @inlinable
    public var entries: [Entry] { storage }

    /// An empty table.
    @inlinable
    public init() {}

    /// A table of `pairs` (of a key given twice, the last value).
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

    /// The keys, in order (a view: nothing is copied until read).
    @inlinable
    public var keys: LazyMapCollection<[Entry], Key> { storage.lazy.map { $0.key } }

    /// The values, in the order of their keys (a view: each is copied as it is read).
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
        let (index, found) = place(of: key)
        return found ? index : nil
    }

    /// Where `key`'s entry is, or where it would go: the first entry whose key is not less.
    @inlinable
    func place(of key: Key) -> (index: Int, found: Bool) {
        // Each entry's key read where it is kept (through the buffer's address): reading `storage[index].key` copied
        // the whole entry, its value's references retained and released, for every key compared.
        storage.withUnsafeBufferPointer { buffer in
            var low = 0
            var high = buffer.count
            while high - low > Self.searchedInTurnUpTo {
                let middle = low + (high - low) / 2
                if buffer[middle].key < key {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            while low < high, buffer[low].key < key {
                low += 1
            }
            return (low, low < buffer.count && buffer[low].key == key)
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

    /// Reads the value at `index` (from ``index(forKey:)``) where it is kept, nothing of it copied but what `body`
    /// takes (the subscript by key copies the whole value out: a node's description, its lists).
    @inlinable
    public func read<Result>(at index: Int, _ body: (borrowing Value) -> Result) -> Result {
        storage.withUnsafeBufferPointer { body($0[index].value) }
    }

    /// Reads or changes the value at `index` (from ``index(forKey:)``) where it is kept: the subscript by key
    /// copies it out (and back).
    @inlinable
    public mutating func inPlace<Result>(at index: Int, _ body: (inout Value) -> Result) -> Result {
        body(&storage[index].value)
    }

    /// Sets `key`'s value, in its place among the others when the key is new.
    @inlinable
    public mutating func updateValue(_ value: Value, forKey key: Key) {
        let (index, found) = place(of: key)
        if found {
            storage[index].value = value
        } else if index == storage.count {
            storage.append(Entry(key: key, value: value))
        } else {
            storage.insert(Entry(key: key, value: value), at: index)
        }
    }

    /// Removes `key`'s entry; returns its value.
    @discardableResult
    @inlinable
    public mutating func removeValue(forKey key: Key) -> Value? {
        guard let index = index(forKey: key) else {
            return nil
        }
        return storage.remove(at: index).value
    }

    /// Removes every entry.
    @inlinable
    public mutating func removeAll() {
        storage = []
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
    /// The same keys with the same values (each table holds them in the order of their keys).
    @inlinable
    public static func == (lhs: SmallTable, rhs: SmallTable) -> Bool {
        lhs.storage.elementsEqual(rhs.storage) { $0.key == $1.key && $0.value == $1.value }
    }
}

extension SmallTable: Hashable where Value: Hashable {
    /// Hashed as a dictionary hashes its entries, each apart, whatever their order.
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

extension SmallTable: Decodable where Key: Decodable, Value: Decodable {
    /// Read from a dictionary.
    @inlinable
    public init(from decoder: any Decoder) throws {
        let dictionary = try [Key: Value](from: decoder)
        self.init(uniqueKeysWithValues: dictionary.sorted { $0.key < $1.key }.lazy.map { ($0.key, $0.value) })
    }
}
