/// Why the store cannot be used, with what to do about it.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is: callers act on the code, people read the message.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The file is damaged (not a database, or a page fails its checks).
        public static let corrupted = Code(rawValue: "corrupted")
        /// The file is a database of another program.
        public static let foreign = Code(rawValue: "foreign")
        /// The file was written by a newer FlowBus, in a format this one does not know.
        public static let newerFormat = Code(rawValue: "newerFormat")
        /// The file or its directory cannot be opened, read or written.
        public static let unavailable = Code(rawValue: "unavailable")
        /// Another flowd holds the state directory.
        public static let locked = Code(rawValue: "locked")
        /// The database refused a statement (a constraint, a conflict with another instance, a permission).
        public static let rejected = Code(rawValue: "rejected")
        /// This instance no longer owns what it wrote: another instance of the fleet took it over.
        public static let fenced = Code(rawValue: "fenced")
        /// A stored record cannot be read back.
        public static let invalidRecord = Code(rawValue: "invalidRecord")

        public var description: String { rawValue }
    }

    /// What kind of failure it is.
    public let code: Code
    /// What happened and what to do.
    public let message: String
    /// PostgreSQL's SQLSTATE, when the database refused a statement.
    public let sqlState: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
    }

    public var description: String { message }
}
