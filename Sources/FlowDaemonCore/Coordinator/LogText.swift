/// What flowd's logs quote of what a peer sent: a short prefix, so that a peer cannot fill the log.
package enum LogText {
    /// The most characters quoted.
    package static let limit = 64

    /// `text` whole when short, else its first ``limit`` characters and how long it was.
    package static func quoted(_ text: String) -> String {
        guard text.count > limit else { return text }
        return "\(text.prefix(limit))…(\(text.utf8.count) bytes)"
    }

    /// A connection's routing id as told to peers and logs: quoted, but never one libzmq made up (it begins with a
    /// zero byte, then a counter). libzmq aborts when it makes up an id a peer already took, so its counter stays
    /// unknown to peers.
    package static func routingID(_ peer: String) -> String {
        guard peer.utf8.first == 0 else { return quoted(peer) }
        return "none (the DEALER set no routing id)"
    }
}
