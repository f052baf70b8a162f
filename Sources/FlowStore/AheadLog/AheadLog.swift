import Foundation

/// Groups written to the operating system ahead of their transaction: with the durability `os`, an answer waits for
/// its group to be in the operating system's hands, not for the store's transaction — a group copied into the ahead
/// log (two files mapped into memory, `flowd.ahead-0` and `flowd.ahead-1`) survives flowd killed at any moment, and
/// the store writes many groups later in one transaction.
///
/// Each group goes in with its ticket and the run's epoch (random, per opening). The store's metadata says, in the
/// same transaction as the groups, how far the store got (``marker(through:)``, under ``metadataKey``); at the next
/// start the groups of that epoch after that ticket are written to the store first (``pending(after:)``), then the
/// log is emptied (``clear()``). A file holds records while the other one's are being written to the store: once a
/// file's groups are all in the store it is reset and written again from its start.
///
/// Used by one thread at a time (flowd's loop).
public final class AheadLog {
    /// The metadata key of ``marker(through:)``.
    public static let metadataKey = "aheadLog"
    /// The size of each of the two files (their room on the disk is taken when they are made).
    public static let segmentCapacity = 8 << 20

    /// This run's epoch: in every record, and in the marker.
    public let epoch: UInt64
    private let segments: [AheadLogSegment]
    private var active = 0
    /// Every group through this ticket is in the store.
    private var storedThrough: UInt64 = 0

    /// Opens the ahead log in `directory` (files `flowd.ahead-0` and `flowd.ahead-1`), creating what is missing.
    /// - Throws: ``StoreError`` `.unavailable` when a file cannot be made (no room on the disk) or opened.
    public init(directory: String, capacity: Int = segmentCapacity) throws(StoreError) {
        segments = [
            try AheadLogSegment(path: directory + "/flowd.ahead-0", capacity: capacity),
            try AheadLogSegment(path: directory + "/flowd.ahead-1", capacity: capacity),
        ]
        epoch = UInt64.random(in: 1...UInt64.max)
    }

    /// The marker that says, in the store's metadata, that every group of this run through `ticket` is there.
    public func marker(through ticket: UInt64) -> String {
        Self.marker(epoch: epoch, through: ticket)
    }

    /// The marker of the run `epoch`, through `ticket`: the epoch in hexadecimal, a colon, the ticket.
    public static func marker(epoch: UInt64, through ticket: UInt64) -> String {
        "\(String(epoch, radix: 16)):\(ticket)"
    }

    /// The groups a run left in the log that its store does not hold: those of the epoch the store's `marker`
    /// names, after its ticket, in the order they were written — up to the first ticket missing (a group that was
    /// not logged and not written: no answer after it left). A store without a marker holds none of them.
    /// - Returns: the groups, and the marker that says the store holds them (to write with them, so that a start
    ///   killed before ``clear()`` does not write them twice); `nil` when there are none.
    public func pending(after marker: String?) -> (groups: [StoreGroup], marker: String)? {
        guard let parts = marker?.split(separator: ":"), parts.count == 2,
            let epoch = UInt64(parts[0], radix: 16), let through = UInt64(parts[1])
        else { return nil }
        let records = segments.flatMap { $0.records().records }.filter { $0.epoch == epoch && $0.ticket > through }
        var groups: [StoreGroup] = []
        var last = through
        for record in records.sorted(by: { $0.ticket < $1.ticket }) {
            guard record.ticket == last + 1, let group = StoreGroup(aheadLogBytes: record.payload) else { break }
            groups.append(group)
            last = record.ticket
        }
        return groups.isEmpty ? nil : (groups, Self.marker(epoch: epoch, through: last))
    }

    /// Whether the directory has ahead-log files that may hold groups (files that are not empty).
    public static func mayHoldGroups(in directory: String) -> Bool {
        ["/flowd.ahead-0", "/flowd.ahead-1"].contains { name in
            var status = stat()
            return stat(directory + name, &status) == 0 && status.st_size > 0
        }
    }

    /// Empties both files (their groups are in the store).
    public func clear() {
        for segment in segments {
            segment.reset()
        }
        active = 0
        storedThrough = 0
    }

    /// Copies a group in; `false` when neither file has room for it (the group then waits for its transaction).
    public func append(_ group: StoreGroup, ticket: UInt64) -> Bool {
        let payload = group.aheadLogBytes()
        if segments[active].append(epoch: epoch, ticket: ticket, payload: payload) {
            return true
        }
        let other = 1 - active
        guard segments[other].lastTicket.map({ $0 <= storedThrough }) ?? true else { return false }
        segments[other].reset()
        active = other
        return segments[active].append(epoch: epoch, ticket: ticket, payload: payload)
    }

    /// The store holds every group through `ticket`: a file holding only those starts again.
    public func stored(through ticket: UInt64) {
        storedThrough = max(storedThrough, ticket)
        for segment in segments where segment.lastTicket.map({ $0 <= storedThrough }) ?? false {
            segment.reset()
        }
    }

    /// Bytes the log holds now.
    public var bytesHeld: Int {
        segments.reduce(0) { $0 + $1.tail }
    }
}
