/// Settings that cannot be used, and why.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// Where and what.
    public let description: String

    package init(_ description: String) {
        self.description = description
    }
}
