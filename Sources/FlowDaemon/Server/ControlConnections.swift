import Glibc
import ZeroMQ

/// With CURVE, the connections of flowd's control socket, by file descriptor (from the socket's monitor), with
/// when each last brought a message, and the means to cut one.
///
/// flowd does not hand a connected routing id over to a new connection under CURVE (that would let one key take
/// another's replies), so a connection that holds an id keeps its owner out. One that speaks under another key's
/// id is cut at its first message; one that only holds the id, saying nothing, is cut once it has been silent
/// longer than a peer may be (the heartbeat timeout): every client sends something within the heartbeat interval.
/// A client that was cut, having said nothing, connects again when it next has something to say.
struct ControlConnections {
    /// When each connection was accepted (which tells it from a later one given the same descriptor) and last
    /// brought a message (ms).
    private var lastHeard: [Int32: (accepted: Int64, heard: Int64)] = [:]
    /// Connections to cut once their answer has had time to leave: when they were accepted, and when to cut.
    private var cutsDue: [(descriptor: Int32, accepted: Int64, at: Int64)] = []

    /// How long a connection to be cut is left for its last answer to leave (ms).
    static let answerTime: Int64 = 50

    /// How many connections are followed.
    var count: Int { lastHeard.count }

    /// Follows the control socket's monitor: accepted connections come in, closed ones go.
    mutating func note(_ event: MonitorEvent, now: Int64) {
        let descriptor = Int32(truncatingIfNeeded: event.value)
        switch event.kind {
        case .accepted: lastHeard[descriptor] = (now, now)
        case .disconnected, .closed: lastHeard[descriptor] = nil
        default: break
        }
    }

    /// Cuts the connection `descriptor` after ``answerTime`` (see ``cutDue(now:)``), so that what flowd answered it
    /// leaves first: a connection shut down at once loses what libzmq has not written yet.
    mutating func cutSoon(_ descriptor: Int32?, now: Int64) {
        guard let descriptor, let connection = lastHeard[descriptor] else { return }
        cutsDue.append((descriptor, connection.accepted, now + Self.answerTime))
    }

    /// When the next cut is due, if any.
    var nextCut: Int64? { cutsDue.map(\.at).min() }

    /// Cuts the connections whose cut is due (those still open).
    mutating func cutDue(now: Int64) {
        guard !cutsDue.isEmpty else { return }
        for due in cutsDue where due.at <= now && lastHeard[due.descriptor]?.accepted == due.accepted {
            cut(due.descriptor)
        }
        cutsDue.removeAll { $0.at <= now }
    }

    /// A message came in on the connection `descriptor` (known only once its monitor said it was accepted: a
    /// descriptor never seen may be one libzmq has closed and the system given to something else).
    mutating func heard(_ descriptor: Int32?, now: Int64) {
        guard let descriptor, lastHeard[descriptor] != nil else { return }
        lastHeard[descriptor]?.heard = now
    }

    /// Cuts the connection `descriptor`, if it is one of the control socket's. Returns whether it was.
    @discardableResult
    mutating func cut(_ descriptor: Int32?) -> Bool {
        guard let descriptor, lastHeard.removeValue(forKey: descriptor) != nil else { return false }
        // libzmq owns the descriptor: shut down, never closed here; its I/O thread sees the end and closes it.
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
        return true
    }

    /// Cuts the connections that brought no message for more than `silence` (ms). Returns how many.
    mutating func cutSilent(now: Int64, silence: Int64) -> Int {
        let silent = lastHeard.filter { now - $0.value.heard > silence }.keys
        for descriptor in silent {
            cut(descriptor)
        }
        return silent.count
    }
}
