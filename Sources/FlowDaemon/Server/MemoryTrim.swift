import Glibc

/// glibc's `malloc_trim`: gives the free memory of every arena back to the system. malloc keeps what a burst
/// freed (a flood of large messages) for reuse; flowd calls this now and then so that its resident size comes back
/// down. Looked up at run time (Swift's Glibc module does not carry `<malloc.h>`); a no-op where it is missing.
enum MemoryTrim {
    private typealias Trim = @convention(c) (Int) -> Int32

    private static let trim: Trim? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
    }()

    /// Returns free memory to the system.
    static func now() {
        _ = trim?(0)
    }
}
