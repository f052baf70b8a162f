/// HELLO: the first message of a peer, registering it under an id for a session.
public struct Hello: Sendable, Hashable, Codable {
    /// What the peer is.
    public var role: Role
    /// Its connection id, unique on the daemon: it must also be the DEALER's routing id (so that a restarted
    /// process takes its connection over), such as `kiosk-7/app`.
    public var id: String
    /// The name it has in its session: the stepper's id that flows name (`app`), the presenter's display
    /// (`main`), or the guard's name. Defaults to ``id``.
    public var name: String?
    /// The session it works for; created if it does not exist (an inspector may leave it out).
    public var session: String?
    /// Optional features it supports, such as `"resend"`.
    public var capabilities: [String]
    /// The protocol version it speaks.
    public var protocolVersion: Int

    public init(
        role: Role,
        id: String,
        name: String? = nil,
        session: String?,
        capabilities: [String] = [],
        protocolVersion: Int = 1
    ) {
        self.role = role
        self.id = id
        self.name = name
        self.session = session
        self.capabilities = capabilities
        self.protocolVersion = protocolVersion
    }
}

/// WELCOME: the daemon's answer to HELLO.
public struct Welcome: Sendable, Hashable, Codable {
    /// The daemon's version.
    public var daemonVersion: String
    /// The id the peer is registered under.
    public var id: String
    /// The session, when the peer named one.
    public var session: String?
    /// Whether the session was created by this HELLO.
    public var sessionCreated: Bool
    /// How often the daemon expects traffic (heartbeats when idle), in milliseconds.
    public var heartbeatInterval: Int
    /// How long without traffic before a peer is considered gone, in milliseconds.
    public var heartbeatTimeout: Int
    /// The largest message the daemon takes, in bytes.
    public var maxMessageSize: Int
    /// For a stepper: the highest step sequence the daemon has applied for this id (resend what is above).
    public var lastSequence: UInt64?
    /// The epoch of the daemon's state: the same across restarts that kept the sessions, another one when they
    /// were lost (then step numbering and command sequences start over). Absent from daemons that do not say.
    public var epoch: String?

    public init(
        daemonVersion: String,
        id: String,
        session: String?,
        sessionCreated: Bool,
        heartbeatInterval: Int,
        heartbeatTimeout: Int,
        maxMessageSize: Int,
        lastSequence: UInt64?,
        epoch: String? = nil
    ) {
        self.daemonVersion = daemonVersion
        self.id = id
        self.session = session
        self.sessionCreated = sessionCreated
        self.heartbeatInterval = heartbeatInterval
        self.heartbeatTimeout = heartbeatTimeout
        self.maxMessageSize = maxMessageSize
        self.lastSequence = lastSequence
        self.epoch = epoch
    }
}

/// REDIRECT: the daemon's answer to a HELLO whose session another instance of a fleet serves: connect to that
/// instance's endpoints (a control endpoint with the events endpoint at the same place) and say HELLO there.
public struct Redirect: Sendable, Hashable, Codable {
    /// The session.
    public var session: String
    /// The instance that serves it.
    public var instance: String
    /// Its control endpoints, in order of preference.
    public var control: [String]
    /// Its events endpoints, in the same order.
    public var events: [String]

    public init(session: String, instance: String, control: [String], events: [String]) {
        self.session = session
        self.instance = instance
        self.control = control
        self.events = events
    }
}

/// BYE: a peer leaves (its registration ends; a presenter's screens become hidden).
public struct Bye: Sendable, Hashable, Codable {
    /// Why, for the logs.
    public var reason: String?

    public init(reason: String? = nil) {
        self.reason = reason
    }
}

/// HEARTBEAT: "still here", sent both ways when a connection is otherwise idle.
public struct Heartbeat: Sendable, Hashable, Codable {
    public init() {}
}

/// ERROR: a message was refused; nothing it asked for happened.
public struct ErrorReply: Sendable, Hashable, Codable {
    /// A stable code (see the specification's table).
    public var code: String
    /// What was wrong and what to do.
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}
