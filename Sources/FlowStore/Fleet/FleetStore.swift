/// A store shared by a fleet of flowd instances: each session is served by one instance at a time, the one that
/// owns it. An instance owns what it created or took over, through a lease it renews; what it writes is checked
/// against its fencing token, so that an instance that lost a session (paused past its lease, and another took the
/// session over) can never write over its successor.
///
/// Like every store, a fleet store is used by one thread at a time.
public protocol FleetStore: SessionStore {
    /// This instance, as the fleet knows it.
    var instance: FleetInstance { get }

    /// Who serves a session this instance does not hold in memory. A session whose owner's lease expired becomes
    /// this instance's, and comes with what is stored of it; a session a live instance owns stays there, and the
    /// answer names that instance. A session nobody owns becomes this instance's when `claiming` (a stepper or a
    /// presenter creates it); else the answer is ``SessionPlacement/nowhere`` (an inspector asking about it).
    func locate(_ session: String, claiming: Bool) throws(StoreError) -> SessionPlacement

    /// Takes over sessions of instances whose lease expired: this instance's share of them (the orphans divided by
    /// the live instances), at most `limit`. Returns what is stored of them.
    func adoptOrphans(limit: Int) throws(StoreError) -> StoredState

    /// The sessions this instance owns now, when another instance took some of its sessions over since the last
    /// call (this one was paused past its lease): one it holds that is not among them is lost. `nil` when none was
    /// taken: a cheap look at its own row.
    func ownedSessionsIfTaken() throws(StoreError) -> Set<String>?

    /// Every instance of the fleet, live or not, with how many sessions each owns.
    func members() throws(StoreError) -> [FleetMember]
}

/// Who an instance is in the fleet, and how clients reach it.
public struct FleetInstance: Sendable, Hashable, Codable {
    /// Its name, unique in the fleet and the same across its restarts (a host name, a StatefulSet pod's name).
    public var name: String
    /// The control endpoints clients connect to (as they reach it: not `tcp://*:5860`).
    public var control: [String]
    /// The events endpoints clients connect to.
    public var events: [String]
    /// How long its lease lasts without being renewed (milliseconds).
    public var leaseMilliseconds: Int64
    /// The text of the flows file it runs, and where that file is: the sessions it writes are replayed with them,
    /// wherever they are taken over.
    public var flows: String
    public var flowsFile: String

    /// Creates an instance's identity.
    public init(
        name: String,
        control: [String],
        events: [String],
        leaseMilliseconds: Int64,
        flows: String = "",
        flowsFile: String = ""
    ) {
        self.name = name
        self.control = control
        self.events = events
        self.leaseMilliseconds = leaseMilliseconds
        self.flows = flows
        self.flowsFile = flowsFile
    }
}

/// Where a session is served.
public enum SessionPlacement: Sendable, Hashable {
    /// Here: the session is this instance's now, with what is stored of it (nothing, for a new one); its metadata's
    /// `flows` and `flowsFile` are those of the instance that wrote it.
    case here(StoredState)
    /// By another instance, whose lease is alive.
    case elsewhere(FleetMember)
    /// Nowhere: no instance owns it, and it was not claimed.
    case nowhere
}

/// One instance of a fleet, as the store sees it.
public struct FleetMember: Sendable, Hashable, Codable {
    /// Its name.
    public var name: String
    /// The control endpoints clients connect to.
    public var control: [String]
    /// The events endpoints clients connect to.
    public var events: [String]
    /// Whether its lease is alive.
    public var alive: Bool
    /// Milliseconds until its lease expires (negative: since it expired).
    public var leaseRemainingMilliseconds: Int64
    /// Sessions it owns.
    public var sessions: Int
    /// When it started (milliseconds since 1970).
    public var startedAt: Int64

    /// Creates a member.
    public init(
        name: String,
        control: [String],
        events: [String],
        alive: Bool,
        leaseRemainingMilliseconds: Int64,
        sessions: Int,
        startedAt: Int64
    ) {
        self.name = name
        self.control = control
        self.events = events
        self.alive = alive
        self.leaseRemainingMilliseconds = leaseRemainingMilliseconds
        self.sessions = sessions
        self.startedAt = startedAt
    }
}
