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

    /// Over the limit: the address holding the most bytes of unproven topics, whose topics are forgotten at once
    /// (its connections are cut, and libzmq drops their subscriptions; a topic subscribed twice on one connection
    /// is given back once, so counting on would keep it forever). `nil` under the limit.
    mutating func addressToCut() -> String? {
        guard bytes > Self.limit else { return nil }
        var held: [String: Int] = [:]
        for (topic, entry) in topics {
            held[entry.address, default: 0] += topic.count * entry.count
        }
        guard let (address, _) = held.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }) else { return nil }
        forget { $1.address == address }
        return address
    }
}
