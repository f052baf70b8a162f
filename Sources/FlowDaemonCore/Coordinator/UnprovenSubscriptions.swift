/// Subscriptions to topics flowd does not publish, or not yet: a presenter subscribes to its session's commands
/// before its HELLO creates the session, but a peer may also send topics that name nothing. libzmq keeps every
/// subscription of a connection, without a bound of its own, until the connection ends; flowd counts what these
/// topics hold (by bytes, as libzmq's tree of topics grows by the byte), and past ``limit`` it cuts the
/// connection of the address that holds the most.
struct UnprovenSubscriptions: Sendable {
    /// The most bytes of unproven topics held before a subscriber is cut.
    static let limit = 256 << 10

    struct Entry: Sendable {
        /// How many subscriptions hold the topic.
        var count: Int
        /// Who subscribed first (ZeroMQ's `Peer-Address`; empty when unknown).
        let address: String
    }

    private(set) var topics: [[UInt8]: Entry] = [:]
    /// The bytes the topics hold, each counted once per subscription.
    private(set) var bytes = 0

    /// A subscription to an unproven topic.
    mutating func add(_ topic: [UInt8], address: String) {
        topics[topic, default: Entry(count: 0, address: address)].count += 1
        bytes += topic.count
    }

    /// A subscription ended (or was never there: a peer may unsubscribe from anything); nothing below zero.
    mutating func remove(_ topic: [UInt8]) {
        guard var entry = topics[topic] else { return }
        entry.count -= 1
        bytes -= topic.count
        topics[topic] = entry.count > 0 ? entry : nil
    }

    /// Forgets topics: those published now (their session started) are subscriptions like any other.
    mutating func forget(where forgotten: ([UInt8], Entry) -> Bool) {
        for (topic, entry) in topics where forgotten(topic, entry) {
            topics[topic] = nil
            bytes -= topic.count * entry.count
        }
    }

    /// Over the limit: the address holding the most bytes of unproven topics; `nil` under the limit. Its topics are
    /// given back as the connection cut ends (libzmq says so, topic by topic), or forgotten when nothing could be
    /// cut there (``forget(address:)``).
    mutating func addressToCut() -> String? {
        guard bytes > Self.limit else { return nil }
        var held: [String: Int] = [:]
        for (topic, entry) in topics {
            held[entry.address, default: 0] += topic.count * entry.count
        }
        guard let (address, _) = held.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }) else { return nil }
        return address
    }

    /// Forgets the topics first subscribed from `address`: all its connections were cut (ipc), or none could be
    /// (no connection there sent more than a subscriber does: what is counted is stale, such as a topic subscribed
    /// twice on one connection, which libzmq gives back once).
    mutating func forget(address: String) {
        forget { $1.address == address }
    }
}
