/// What a subscriber's connection may send before the server cuts it (`SubscriberConnections` in FlowDaemon), as the
/// coordinator's log names it: libzmq keeps every subscription a subscriber sends, with no bound of its own.
package enum SubscriberLimits {
    /// The most bytes a subscriber's tcp connection may send in all: its greeting, handshake (CURVE's included) and
    /// a few subscriptions take well under 1 KiB; 8 KiB is some 30 of the longest topics flowd publishes. libzmq's
    /// tree keeps about 50 bytes per byte of a topic no other shares (measured: 500 000 topics of 64 bytes took
    /// 1 GiB), so a connection holds at most some 400 KiB, and flowd as many times that as it takes connections.
    package static let byteLimit: UInt64 = 8 << 10
    /// The most bytes a subscriber's connection may have waiting to be read: a subscriber's whole conversation
    /// takes a few hundred, and a unix socket holds at most some 48 KiB.
    package static let waitingLimit = 16 << 10
}
