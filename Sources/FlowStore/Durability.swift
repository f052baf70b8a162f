/// What flowd waits for before anything a write concerns leaves it (STEP_ACK, COMMANDS, WELCOME), in the manner
/// of Redis's `appendfsync`.
public enum Durability: String, Sendable, Hashable, CaseIterable, Codable {
    /// Written to the operating system first: survives flowd killed at any moment (`kill -9`); after a power loss
    /// the file is consistent but may miss the last groups. The default.
    case os
    /// On the disk first (fsync per group): survives a power loss too, at the price of a disk flush per turn of
    /// flowd's loop.
    case fsync
    /// Nothing waits: answers go out at once and the journal is written at least once a second; a crash loses what
    /// was not written yet.
    case off
}
