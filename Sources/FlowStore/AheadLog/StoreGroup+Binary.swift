/// A group in the ahead log: its parts one after the other, each count and length a little-endian `UInt32`.
///
/// removed (count, then each session), entries (count, then each session and record), snapshots (the same), metadata
/// (count, then each key and value); a text or a record is its length, then its bytes.
extension StoreGroup {
    /// The group's bytes in the ahead log.
    func aheadLogBytes() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + entries.reduce(0) { $0 + $1.session.utf8.count + $1.bytes.count + 8 })
        func put(_ value: Int) {
            withUnsafeBytes(of: UInt32(value).littleEndian) { bytes.append(contentsOf: $0) }
        }
        func put(_ text: String) {
            put(text.utf8.count)
            bytes.append(contentsOf: text.utf8)
        }
        func put(_ record: [UInt8]) {
            put(record.count)
            bytes.append(contentsOf: record)
        }
        put(removed.count)
        removed.forEach(put)
        put(entries.count)
        for entry in entries {
            put(entry.session)
            put(entry.bytes)
        }
        put(snapshots.count)
        for snapshot in snapshots {
            put(snapshot.session)
            put(snapshot.bytes)
        }
        put(metadata.count)
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            put(key)
            put(value)
        }
        return bytes
    }

    /// The group whose ahead-log bytes are `bytes`; `nil` when they are not one (its checksum matched: a bug, or a
    /// file of another program).
    init?(aheadLogBytes bytes: UnsafeRawBufferPointer) {
        var reader = BinaryReader(bytes: bytes)
        guard let removed = reader.list({ $0.text() }),
            let entries = reader.list({ reader in
                reader.text().flatMap { session in reader.record().map { JournalRecord(session: session, bytes: $0) } }
            }),
            let snapshots = reader.list({ reader in
                reader.text().flatMap { session in reader.record().map { SnapshotRecord(session: session, bytes: $0) } }
            }),
            let metadata = reader.list({ reader in reader.text().flatMap { key in reader.text().map { (key, $0) } } }),
            reader.isAtEnd
        else { return nil }
        self.init()
        self.removed = removed
        self.entries = entries
        self.snapshots = snapshots
        self.metadata = Dictionary(metadata, uniquingKeysWith: { _, last in last })
    }
}

/// Reads the ahead log's counts, texts and records, never past its bytes.
private struct BinaryReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    var isAtEnd: Bool { offset == bytes.count }

    mutating func count() -> Int? {
        guard bytes.count - offset >= 4 else { return nil }
        defer { offset += 4 }
        return Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }

    mutating func record() -> [UInt8]? {
        guard let length = count(), bytes.count - offset >= length else { return nil }
        defer { offset += length }
        return Array(bytes[offset..<(offset + length)])
    }

    mutating func text() -> String? {
        record().map { String(decoding: $0, as: UTF8.self) }
    }

    /// A count, then that many elements; `nil` as soon as one cannot be read.
    mutating func list<Element>(_ element: (inout BinaryReader) -> Element?) -> [Element]? {
        guard let count = count(), count <= bytes.count - offset else { return nil }
        var elements: [Element] = []
        elements.reserveCapacity(count)
        for _ in 0..<count {
            guard let next = element(&self) else { return nil }
            elements.append(next)
        }
        return elements
    }
}
