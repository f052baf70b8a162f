import Glibc

/// A unix socket's address (`sockaddr_un`) from a path, or from `@name` in the abstract namespace; `nil` when the
/// path does not fit. `body` gets the address and its length, for `connect` or `sendto`.
func withUnixSocketAddress<Result>(
    _ path: String,
    _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
) -> Result? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    var bytes = Array(path.utf8)
    if bytes.first == UInt8(ascii: "@") {
        bytes[0] = 0  // The abstract namespace.
    }
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
    }
}
