import Glibc
import ZeroMQ

/// The connections of flowd's events socket, by file descriptor (from the socket's monitor), and the means to cut
/// one: libzmq keeps every subscription a subscriber sends, with no bound of its own, until its connection ends.
///
/// A subscription names its peer only by address (ZeroMQ's `Peer-Address`): over ipc `localhost:uid:gid:pid`,
/// which `SO_PEERCRED` gives for each connection; over tcp the IP address alone, shared by every client of a host. Of a
/// host's connections, the one that sent the most bytes is cut: a subscriber sends a greeting and a few topics, so
/// the one that sent thousands of subscriptions stands out.
struct SubscriberConnections {
    /// The most bytes a subscriber's tcp connection may send in all (``SubscriberLimits/byteLimit``).
    static let byteLimit = SubscriberLimits.byteLimit
    /// What a connection must have sent to be cut for holding unproven topics (a subscriber sends less).
    static let unprovenFloor: UInt64 = 4 << 10
    /// The most bytes a subscriber's connection may have waiting to be read (``SubscriberLimits/waitingLimit``).
    static let waitingLimit = SubscriberLimits.waitingLimit

    /// How long a process whose ipc connections were cut has its new ones cut too (ms), the first time: libzmq's
    /// XSUB sends all its subscriptions again on each new connection, faster than flowd reads them. Each cut
    /// within a ban doubles the next, up to ten minutes.
    static let localBan: Int64 = 10_000

    /// How many of a host's tcp connections may be cut for what they sent within ``repeatWindow`` before its new
    /// connections are refused in the handshake for a while (``localBan``, doubling): each connection that ends
    /// makes libzmq walk its whole tree of topics, so one that reconnects at once and floods again keeps flowd's loop
    /// busy. Other hosts are not concerned; this host's peers already connected stay.
    static let repeatedCuts = 8
    /// The window in which cuts of a host count (ms).
    static let repeatWindow: Int64 = 10_000

    private(set) var descriptors: Set<Int32> = []
    /// When a host's tcp connections were last cut for what they sent (within ``repeatWindow``).
    private var recentCuts: [String: [Int64]] = [:]
    /// The ipc peers (`localhost:uid:gid:pid`) whose connections are cut as they come: until when (ms), and how
    /// long the last ban was.
    private var banned: [String: (until: Int64, length: Int64)] = [:]
    /// Where bans are also made known to the ZAP handler, which then refuses the process in the handshake.
    let gate: ConnectionGate?

    init(gate: ConnectionGate? = nil) {
        self.gate = gate
    }

    /// Follows the events socket's monitor: accepted connections come in (or are cut at once, from a process
    /// cut less than ``localBan`` ago), closed ones go.
    mutating func note(_ event: MonitorEvent, now: Int64) {
        switch event.kind {
        case .accepted:
            let descriptor = Int32(truncatingIfNeeded: event.value)
            banned = banned.filter { $0.value.until + $0.value.length > now }
            if !banned.isEmpty, let peer = Self.peerAddress(of: descriptor), let ban = banned[peer.address],
                ban.until > now
            {
                _ = shutdown(descriptor, Int32(SHUT_RDWR))
            } else {
                descriptors.insert(descriptor)
            }
        case .disconnected, .closed: descriptors.remove(Int32(truncatingIfNeeded: event.value))
        default: break
        }
    }

    /// Cuts the connections of the peer at `address` (all of a process's over ipc; over tcp, the one of that host
    /// that sent the most, if it sent more than a subscriber that only subscribes to what it reads would,
    /// ``unprovenFloor``):
    /// shut down, so that libzmq ends them and drops their subscriptions. Returns how many.
    mutating func cut(address: String, now: Int64) -> (count: Int, local: Bool) {
        // Each connection's peer read once: every read is a system call (or two).
        let peers = descriptors.compactMap { descriptor in
            Self.peerAddress(of: descriptor).flatMap { $0.address == address ? (descriptor, $0.isLocal) : nil }
        }
        let local = peers.contains { $0.1 }
        let chosen: [Int32]
        if local {
            chosen = peers.map(\.0)
            ban(address, now: now)
        } else {
            let sent = peers.map { (descriptor: $0.0, bytes: Self.bytesReceived(on: $0.0)) }
            chosen =
                sent.max { $0.bytes < $1.bytes }.flatMap { $0.bytes > Self.unprovenFloor ? [$0.descriptor] : nil }
                ?? []
        }
        for descriptor in chosen {
            // libzmq owns the descriptor: shut down, never closed here; its I/O thread sees the end and closes it.
            _ = shutdown(descriptor, Int32(SHUT_RDWR))
            descriptors.remove(descriptor)
        }
        return (chosen.count, local)
    }

    /// Cuts every connection, banning none: each client may connect again at once.
    mutating func cutEveryone() {
        for descriptor in descriptors {
            // libzmq owns the descriptor: shut down, never closed here.
            _ = shutdown(descriptor, Int32(SHUT_RDWR))
        }
        descriptors = []
    }

    /// Cuts the connections that sent more than ``byteLimit`` (tcp), or have more than ``waitingLimit`` waiting to
    /// be read (ipc, where no total is kept: libzmq reads no further while flowd has not taken what it read). Returns how
    /// many, by address. What a connection sent is known before libzmq has read it, let alone flowd.
    mutating func cutHeavySenders(now: Int64) -> [String: Int] {
        var cut: [String: Int] = [:]
        for descriptor in descriptors
        where Self.bytesReceived(on: descriptor) > Self.byteLimit
            || Self.bytesWaiting(on: descriptor) > Self.waitingLimit
        {
            let peer = Self.peerAddress(of: descriptor)
            cut[peer?.address ?? "?", default: 0] += 1
            _ = shutdown(descriptor, Int32(SHUT_RDWR))
            descriptors.remove(descriptor)
            if let peer, peer.isLocal {
                ban(peer.address, now: now)
            } else if let peer {
                noteRemoteCut(peer.address, now: now)
            }
        }
        return cut
    }

    /// Counts a cut of a host's tcp connection, and refuses the host a while when it was cut too often.
    private mutating func noteRemoteCut(_ address: String, now: Int64) {
        var times = recentCuts[address, default: []].filter { now - $0 < Self.repeatWindow }
        times.append(now)
        if times.count >= Self.repeatedCuts {
            ban(address, now: now)
            times = []
        }
        recentCuts[address] = times
        if recentCuts.count > 1024 {
            recentCuts = recentCuts.filter { now - ($0.value.last ?? 0) < Self.repeatWindow }
        }
    }

    /// Cuts a process's new ipc connections for a while (see ``localBan``); over tcp, a host's are refused in the
    /// handshake.
    private mutating func ban(_ address: String, now: Int64) {
        // A ban is remembered for as long again after it ends: a process cut again then is banned longer.
        let length = banned[address].map { min(2 * $0.length, 600_000) } ?? Self.localBan
        banned[address] = (now + length, length)
        gate?.ban(address, for: .milliseconds(length))
    }

    /// The bytes waiting to be read on a connection (`FIONREAD`); 0 when unknown.
    static func bytesWaiting(on descriptor: Int32) -> Int {
        var waiting: Int32 = 0
        guard ioctl(descriptor, UInt(FIONREAD), &waiting) == 0 else { return 0 }
        return Int(waiting)
    }

    /// The address ZeroMQ gives the peer of a connection, made the way libzmq makes it: the numeric host, and over
    /// ipc (`isLocal`) the peer's `:uid:gid:pid` after it (`localhost:1000:1000:4242`). With `port`, a tcp peer's
    /// port follows its host (`10.0.0.7:51234`), for an operator to find the process.
    static func peerAddress(of descriptor: Int32, port: Bool = false) -> (address: String, isLocal: Bool)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
        }
        guard named == 0 else { return nil }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let found = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo(
                    $0,
                    length,
                    &host,
                    socklen_t(host.count),
                    &service,
                    socklen_t(service.count),
                    NI_NUMERICHOST | NI_NUMERICSERV
                )
            }
        }
        guard found == 0 else { return nil }
        let text = { (characters: [CChar]) in
            String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let address = text(host)
        guard Int32(storage.ss_family) == AF_UNIX else {
            return (port ? "\(address):\(text(service))" : address, false)
        }
        // struct ucred: pid, uid, gid.
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var size = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 else { return nil }
        return ("\(address):\(credentials.1):\(credentials.2):\(credentials.0)", true)
    }

    /// The bytes a tcp connection has received (Linux's `tcp_info.tcpi_bytes_received`); 0 when unknown.
    static func bytesReceived(on descriptor: Int32) -> UInt64 {
        // Linux's struct tcp_info holds tcpi_bytes_received at byte 128 (since 4.1; the struct only ever grows).
        let offset = 128
        var info = [UInt8](repeating: 0, count: 256)
        var size = socklen_t(info.count)
        guard getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_INFO, &info, &size) == 0, Int(size) >= offset + 8 else {
            return 0
        }
        return info.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
    }
}
