/// Keeps an instance's lease alive: ``renew()`` pushes its end `leaseMilliseconds` past the database's clock (one
/// clock for the whole fleet), as long as the instance is still registered under its token.
///
/// `@unchecked Sendable`: made on one thread and handed to the one that renews it, which alone uses it.
public final class PostgresLease: @unchecked Sendable {
    private var connection: PostgresConnection?
    private let url: String
    /// The instance's name.
    public let name: String
    /// The fencing token it registered with.
    public let token: Int64
    /// How long a renewal lasts.
    public let leaseMilliseconds: Int64
    /// Told whether the database answered each renewal: the lease's connection sees an outage even while the
    /// instance writes nothing.
    private let availability: StoreAvailability

    init(
        connection: PostgresConnection,
        availability: StoreAvailability,
        url: String,
        name: String,
        token: Int64,
        leaseMilliseconds: Int64
    ) {
        self.connection = connection
        self.availability = availability
        self.url = url
        self.name = name
        self.token = token
        self.leaseMilliseconds = leaseMilliseconds
    }

    /// What a renewal found.
    public enum Renewal: Sendable, Hashable {
        /// The lease runs for another `leaseMilliseconds`.
        case renewed
        /// Another flowd registered under this name since: this one is fenced off and must stop writing.
        case fenced
    }

    /// Gives the lease up (a graceful stop, once everything is written): the other instances take this one's
    /// sessions over at their next look, rather than after the lease.
    public func release() throws(StoreError) {
        let connection: PostgresConnection
        if let open = self.connection {
            connection = open
        } else {
            connection = try PostgresConnection(url: url)
        }
        try connection.run(
            "UPDATE flowbus_instances SET lease_until = clock_timestamp() - interval '1 millisecond' WHERE name = $1 AND token = $2",
            [.text(name), .integer(token)]
        )
    }

    /// Renews the lease once; a lost connection is opened again at the next call.
    /// - Throws: ``StoreError`` `.unavailable` when the database cannot be reached now.
    public func renew() throws(StoreError) -> Renewal {
        do throws(StoreError) {
            let renewal = try renewOnce()
            availability.answered(by: .lease)
            return renewal
        } catch {
            if error.code == .unavailable {
                availability.failed(error.message, by: .lease)
            }
            throw error
        }
    }

    /// A connection opened before finds out only at its next statement that the server went away meanwhile (a
    /// PostgreSQL restarted between two renewals): that statement is tried once more, at once, on a new connection,
    /// rather than taken for an outage of its own after the store answered again.
    private func renewOnce(retryingABrokenConnection: Bool = true) throws(StoreError) -> Renewal {
        let connection: PostgresConnection
        let reused = self.connection != nil
        if let open = self.connection {
            connection = open
        } else {
            connection = try PostgresConnection(url: url)
            self.connection = connection
        }
        do {
            let renewed = try connection.run(
                """
                UPDATE flowbus_instances SET lease_until = clock_timestamp() + $3::int8 * interval '1 millisecond'
                WHERE name = $1 AND token = $2
                """,
                [.text(name), .integer(token), .integer(leaseMilliseconds)]
            )
            return renewed.changed == 1 ? .renewed : .fenced
        } catch {
            if !connection.isConnected {
                self.connection = nil
                if reused && retryingABrokenConnection {
                    return try renewOnce(retryingABrokenConnection: false)
                }
            }
            throw error
        }
    }
}
