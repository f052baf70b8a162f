import FlowSpec
import FlowStore
import Foundation

/// An instance of a fleet: the PostgreSQL database its instances share, its name among them, its lease, and the
/// endpoints clients are sent to when they ask another instance for a session it serves.
public struct FleetConfiguration: Sendable, Hashable {
    /// The database (`postgres://user:password@host/database`, or libpq's `key=value` form).
    public var storeURL: String
    /// The instance's name: unique in the fleet, the same across its restarts.
    public var instance: String
    /// How long the lease lasts without renewal (renewed every third of it).
    public var lease: Duration
    /// The control endpoints clients reach it at.
    public var advertisedControl: [String]
    /// The events endpoints clients reach it at.
    public var advertisedEvents: [String]

    /// Creates an instance's configuration.
    public init(
        storeURL: String,
        instance: String,
        lease: Duration = defaultLease,
        advertisedControl: [String],
        advertisedEvents: [String]
    ) {
        self.storeURL = storeURL
        self.instance = instance
        self.lease = lease
        self.advertisedControl = advertisedControl
        self.advertisedEvents = advertisedEvents
    }

    /// The default lease: a dead instance's sessions move after about this long.
    public static let defaultLease: Duration = .seconds(5)

    /// Whether `text` names a PostgreSQL database.
    public static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") || text.contains("dbname=")
            || text.contains("host=")
    }

    /// The endpoints a client elsewhere reaches a bound endpoint at: a wildcard host becomes this machine's name;
    /// ipc endpoints are kept only when there are no tcp ones (a fleet on one machine).
    public static func advertised(_ bound: [String], hostName: String) -> [String] {
        let tcp = bound.filter { $0.hasPrefix("tcp://") }.map { endpoint in
            endpoint.replacingOccurrences(of: "tcp://*:", with: "tcp://\(hostName):")
                .replacingOccurrences(of: "tcp://0.0.0.0:", with: "tcp://\(hostName):")
        }
        return tcp.isEmpty ? bound : tcp
    }

    /// Whether a tcp endpoint's port is chosen by the system as it is bound (`tcp://host:*`).
    package static func hasPortChosenAtBind(_ endpoint: String) -> Bool {
        endpoint.hasPrefix("tcp://") && endpoint.hasSuffix(":*")
    }

    /// This instance as the store knows it, running `flows`.
    package func identity(running flows: FlowSpecification) -> FleetInstance {
        FleetInstance(
            name: instance,
            control: advertisedControl,
            events: advertisedEvents,
            leaseMilliseconds: lease.milliseconds,
            flows: flows.source,
            flowsFile: flows.file
        )
    }

    /// The database's address without its password.
    public var redactedStoreURL: String {
        storeURL.replacing(/password=[^& ]*/, with: "password=***")
            .replacing(/:\/\/([^:\/@]*):[^@\/]*@/) { "://\($0.output.1):***@" }
    }
}
