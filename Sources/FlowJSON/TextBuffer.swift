/// The bytes a ``JSONTextWriter`` writes, in storage of its own: written straight through a pointer, a piece at a
/// time (see ``TextComposer``), with one check for room per piece.
///
/// An array checks, on every append, that its storage is not shared and has room, through a call into the runtime
/// and its generic append machinery: writing a message byte by byte and member by member into one cost more than
/// anything else the wire's writing did. The text is handed over as an array once, at the end (``array``).
///
/// Copies share storage until one of them writes (copy on write, as an array), so a writer stays a value, and may go
/// to another thread as an array may: a copy that writes checks first that it holds the storage alone.
@usableFromInline
struct TextBuffer: @unchecked Sendable {
    @usableFromInline typealias Storage = ManagedBuffer<Void, UInt8>

    @usableFromInline var storage: Storage
    /// The first byte of `storage`'s elements.
    @usableFromInline var start: UnsafeMutablePointer<UInt8>
    /// How many bytes are written.
    @usableFromInline var count = 0
    /// How many bytes `storage` holds.
    @usableFromInline var capacity: Int

    /// An empty text with room for `capacity` bytes.
    @usableFromInline
    init(capacity: Int) {
        storage = Storage.create(minimumCapacity: Swift.max(capacity, 16)) { _ in }
        start = storage.withUnsafeMutablePointerToElements { $0 }
        self.capacity = storage.capacity
    }

    /// A text that starts with `bytes`, with room for `capacity` bytes in all.
    @usableFromInline
    init(_ bytes: [UInt8], capacity: Int) {
        self.init(capacity: Swift.max(capacity, bytes.count))
        append(contentsOf: bytes)
    }

    /// The text as an array (a copy).
    @usableFromInline
    var array: [UInt8] {
        [UInt8](UnsafeBufferPointer(start: start, count: count))
    }

    /// Calls `body` with the text as it is (no copy).
    @inlinable
    func withText<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        body(UnsafeBufferPointer(start: start, count: count))
    }

    /// Makes sure `more` bytes can be written at `start + count` without touching another copy's text.
    @inlinable
    mutating func reserve(_ more: Int) {
        if _slowPath(count + more > capacity || !isKnownUniquelyReferenced(&storage)) {
            moveToNewStorage(holding: count + more)
        }
    }

    /// Storage of our own, with room for at least `needed` bytes (twice what was there when growing).
    @usableFromInline
    mutating func moveToNewStorage(holding needed: Int) {
        let grown = needed > capacity ? Swift.max(needed, 2 * capacity) : capacity
        // The old storage must live until its text is copied: nothing else may hold it.
        let old = (storage, start)
        storage = Storage.create(minimumCapacity: grown) { _ in }
        start = storage.withUnsafeMutablePointerToElements { $0 }
        start.initialize(from: old.1, count: count)
        withExtendedLifetime(old.0) {}
        capacity = storage.capacity
    }

    @inlinable
    mutating func append(_ byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    @inlinable
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (start + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    @inlinable
    mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    @inlinable
    static func += (text: inout TextBuffer, bytes: [UInt8]) {
        text.append(contentsOf: bytes)
    }

    /// Writes a piece of at most `most` bytes through `compose`, straight into the text.
    @inlinable
    mutating func compose(atMost most: Int, _ compose: (inout TextComposer) -> Void) {
        reserve(most)
        var piece = TextComposer(start: start + count)
        compose(&piece)
        count += piece.count
    }
}
