import Glibc
import ZeroMQ

/// With CURVE, the connections of flowd's control socket, by file descriptor (from the socket's monitor), with
/// when each last brought a message, and the means to cut one.
///
/// flowd does not hand a connected routing id over to a new connection under CURVE (that would let one key take
/// another's replies), so a connection that holds an id keeps its owner out. One that speaks under another key's
/// id is cut at its first message. One that has said nothing since it connected (a client speaks at once: its
/// HELLO) is cut after ``firstWordWithin``; one that spoke, then fell silent for longer than a peer may (the
/// heartbeat timeout), is cut too. A client that was cut connects again when it next has something to say. (A
/// connection under an id another holds gets none from libzmq, which leaves what it sends unread: it too says
/// nothing, as far as flowd can tell.) How often a key may connect is bounded too (``ConnectionGate``), so that
/// one that connects again at once under another's id cannot hold it for long.
struct ControlConnections {
    private struct Connection {
        /// When it was accepted: tells it from a later connection given the same descriptor (ms).
        var accepted: Int64
        /// When it last brought a message (ms).
        var heard: Int64
        /// Whether it ever brought one.
        var spoke = false
    }

    /// How long a new connection may say nothing (ms).
    static let firstWordWithin: Int64 = 1000
    /// How long a connection to be cut is left for its last answer to leave (ms).
    static let answerTime: Int64 = 50

    private var connections: [Int32: Connection] = [:]
    /// Connections to cut once their answer has had time to leave: when they were accepted, and when to cut.
    private var cutsDue: [(descriptor: Int32, accepted: Int64, at: Int64)] = []

    /// How many connections are followed.
    var count: Int { connections.count }

    /// Follows the control socket's monitor: accepted connections come in, closed ones go.
    mutating func note(_ event: MonitorEvent, now: Int64) {
        let descriptor = Int32(truncatingIfNeeded: event.value)
        switch event.kind {
        case .accepted: connections[descriptor] = Connection(accepted: now, heard: now)
        case .disconnected, .closed: connections[descriptor] = nil
        default: break
        }
    }

    /// A message came in on the connection `descriptor` (known only once its monitor said it was accepted: a
    /// descriptor never seen may be one libzmq has closed and the system given to something else).
    mutating func heard(_ descriptor: Int32?, now: Int64) {
        // Found once and changed where it is (called for every message: three lookups were made).
        guard let descriptor, let index = connections.index(forKey: descriptor) else { return }
        connections.values[index].heard = now
        connections.values[index].spoke = true
    }

    /// Cuts the connection `descriptor` after ``answerTime`` (see ``cutDue(now:)``), so that what flowd answered it
    /// leaves first: a connection shut down at once loses what libzmq has not written yet.
    mutating func cutSoon(_ descriptor: Int32?, now: Int64) {
        guard let descriptor, let connection = connections[descriptor] else { return }
        cutsDue.append((descriptor, connection.accepted, now + Self.answerTime))
    }

    /// When the next cut is due, if any.
    var nextCut: Int64? { cutsDue.map(\.at).min() }

    /// Cuts the connections whose cut is due (those still open).
    mutating func cutDue(now: Int64) {
        guard !cutsDue.isEmpty else { return }
        for due in cutsDue where due.at <= now && connections[due.descriptor]?.accepted == due.accepted {
            cut(due.descriptor)
        }
        cutsDue.removeAll { $0.at <= now }
    }

    /// Cuts the connection `descriptor`, if it is one of the control socket's. Returns where its peer was.
    @discardableResult
    mutating func cut(_ descriptor: Int32?) -> String? {
        guard let descriptor, connections.removeValue(forKey: descriptor) != nil else { return nil }
        let peer = Self.peer(of: descriptor)
        // libzmq owns the descriptor: shut down, never closed here; its I/O thread sees the end and closes it.
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
        return peer
    }

    /// Cuts the connections that said nothing since they connected for ``firstWordWithin``, or nothing since their
    /// last message for `silence` (ms). Returns where their peers were.
    mutating func cutSilent(now: Int64, silence: Int64) -> [String] {
        let silent = connections.filter { _, connection in
            now - connection.heard > (connection.spoke ? silence : Self.firstWordWithin)
        }.keys
        return silent.compactMap { cut($0) }
    }

    /// Where the peer of a connection is, for an operator to find it: `address:port` over tcp,
    /// `localhost:uid:gid:pid` over ipc; `?` when unknown.
    static func peer(of descriptor: Int32) -> String {
        SubscriberConnections.peerAddress(of: descriptor, port: true)?.address ?? "?"
    }
}
