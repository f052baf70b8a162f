/// Why a text is not JSON, and where: the byte offset of the problem in the text.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The offset of the first byte that is wrong (the text's length when it ends too early).
    public var offset: Int
    /// What is wrong, in words.
    public var reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        "\(reason) at byte \(offset)"
    }
}
