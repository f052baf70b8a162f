import Foundation

/// One file of the ahead log, mapped into memory and shared with the file: a record copied into it is in the
/// operating system's page cache at once (it survives the process killed at any moment), without a system call.
///
/// Records follow each other from the start of the file, each 8-byte aligned: its payload's length (`UInt32`), a
/// CRC-32 of the rest (`UInt32`), the run's epoch (`UInt64`), its ticket (`UInt64`), then the payload. Reading stops
/// at the first record that is not whole (cut short, or bytes of zeros), at a change of epoch and at a ticket that
/// does not grow: what a reset left behind is never taken for a record. A reset zeroes what was written.
///
/// Used by one thread at a time.
final class AheadLogSegment {
    /// A record's bytes before its payload.
    static let headerSize = 24

    let capacity: Int
    private let descriptor: Int32
    private let base: UnsafeMutableRawPointer
    /// Bytes used from the start of the file.
    private(set) var tail = 0
    /// The ticket of the last record appended since the last reset; `nil` while empty.
    private(set) var lastTicket: UInt64?

    /// Opens (or creates) the file at `path`, at least `capacity` bytes long, and finds the records it holds. Its room
    /// on the disk is taken at once: a page of a file mapped into memory that the disk has no room for would stop the
    /// process (SIGBUS) when written, where a write would fail.
    /// - Throws: ``StoreError`` `.unavailable` when the file cannot be opened, given its room, or mapped.
    init(path: String, capacity: Int) throws(StoreError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.unavailable, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            throw StoreError(.unavailable, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        // Whole records of 8 bytes: a file of another size is used up to its last multiple of 8.
        let size = max(Int(status.st_size), capacity) & ~7
        if Int(status.st_size) < size {
            let failure = posix_fallocate(descriptor, 0, off_t(size))
            guard failure == 0 else {
                close(descriptor)
                if status.st_size == 0 {
                    // Made here: nothing of it stays to be taken for a log that may hold groups.
                    unlink(path)
                }
                throw StoreError(
                    .unavailable,
                    "no room for \(path) (\(size) bytes): \(String(cString: strerror(failure)))"
                )
            }
        }
        guard let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), mapped != MAP_FAILED
        else {
            close(descriptor)
            throw StoreError(.unavailable, "cannot map \(path): \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        self.capacity = size
        base = mapped
        let found = records()
        tail = found.end
        lastTicket = found.records.last?.ticket
    }

    deinit {
        munmap(base, capacity)
        close(descriptor)
    }

    /// The records from the start of the file, and where they end.
    func records() -> (records: [(epoch: UInt64, ticket: UInt64, payload: UnsafeRawBufferPointer)], end: Int) {
        var found: [(epoch: UInt64, ticket: UInt64, payload: UnsafeRawBufferPointer)] = []
        var offset = 0
        while capacity - offset >= Self.headerSize {
            let length = Int(UInt32(littleEndian: base.load(fromByteOffset: offset, as: UInt32.self)))
            let checksum = UInt32(littleEndian: base.load(fromByteOffset: offset + 4, as: UInt32.self))
            let epoch = UInt64(littleEndian: base.load(fromByteOffset: offset + 8, as: UInt64.self))
            let ticket = UInt64(littleEndian: base.load(fromByteOffset: offset + 16, as: UInt64.self))
            guard length > 0, capacity - offset >= Self.recordSize(length),
                checksum == Self.checksum(UnsafeRawBufferPointer(start: base + offset + 8, count: 16 + length)),
                found.last.map({ $0.epoch == epoch && $0.ticket < ticket }) ?? true
            else { break }
            found.append((epoch, ticket, UnsafeRawBufferPointer(start: base + offset + Self.headerSize, count: length)))
            offset += Self.recordSize(length)
        }
        return (found, offset)
    }

    /// Copies a record in after the last one; `false` when it does not fit (nothing is written then).
    func append(epoch: UInt64, ticket: UInt64, payload: [UInt8]) -> Bool {
        let size = Self.recordSize(payload.count)
        guard !payload.isEmpty, capacity - tail >= size else { return false }
        let record = base + tail
        record.storeBytes(of: epoch.littleEndian, toByteOffset: 8, as: UInt64.self)
        record.storeBytes(of: ticket.littleEndian, toByteOffset: 16, as: UInt64.self)
        payload.withUnsafeBytes { (record + Self.headerSize).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        let checksum = Self.checksum(UnsafeRawBufferPointer(start: record + 8, count: 16 + payload.count))
        record.storeBytes(of: checksum.littleEndian, toByteOffset: 4, as: UInt32.self)
        // The length last: a record is not there until its length says so.
        record.storeBytes(of: UInt32(payload.count).littleEndian, as: UInt32.self)
        tail += size
        lastTicket = ticket
        return true
    }

    /// Empties the segment: what was written is zeroed (in the page cache: no disk write waits).
    func reset() {
        guard tail > 0 else { return }
        base.initializeMemory(as: UInt8.self, repeating: 0, count: tail)
        tail = 0
        lastTicket = nil
    }

    private static func recordSize(_ length: Int) -> Int {
        (headerSize + length + 7) & ~7
    }

    private static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        CRC32.checksum(bytes)
    }
}
