internal import CZeroMQ

extension SocketOption where Value == Int {
    /// Messages queued for sending per peer before the socket blocks or drops (SNDHWM; 0 is unlimited).
    public static var sendHighWaterMark: Self { Self(ZMQ_SNDHWM, "ZMQ_SNDHWM", .int32) }
    /// Messages queued on receipt per peer before libzmq stops reading (RCVHWM; 0 is unlimited).
    public static var receiveHighWaterMark: Self { Self(ZMQ_RCVHWM, "ZMQ_RCVHWM", .int32) }
}

extension SocketOption where Value == Int? {
    /// The largest message a peer may send; a peer that sends more is disconnected (MAXMSGSIZE; `nil`: no limit).
    public static var maxMessageSize: Self { Self(ZMQ_MAXMSGSIZE, "ZMQ_MAXMSGSIZE", .optionalSize) }
}

extension SocketOption where Value == Duration? {
    /// How long unsent messages may delay closing the socket (LINGER; `nil`: until sent).
    public static var linger: Self { Self(ZMQ_LINGER, "ZMQ_LINGER", .optionalMilliseconds) }
    /// How long a blocking receive waits before returning `nil` (RCVTIMEO; `nil`: forever).
    public static var receiveTimeout: Self { Self(ZMQ_RCVTIMEO, "ZMQ_RCVTIMEO", .optionalMilliseconds) }
    /// How long a blocking send waits before returning `false` (SNDTIMEO; `nil`: forever).
    public static var sendTimeout: Self { Self(ZMQ_SNDTIMEO, "ZMQ_SNDTIMEO", .optionalMilliseconds) }
}

extension SocketOption where Value == Duration {
    /// Send a ZMTP PING when a connection has been idle this long (HEARTBEAT_IVL; zero: off).
    public static var heartbeatInterval: Self { Self(ZMQ_HEARTBEAT_IVL, "ZMQ_HEARTBEAT_IVL", .milliseconds) }
    /// How long the peer should wait for traffic before dropping us (HEARTBEAT_TTL, 100 ms resolution).
    public static var heartbeatTimeToLive: Self { Self(ZMQ_HEARTBEAT_TTL, "ZMQ_HEARTBEAT_TTL", .milliseconds) }
    /// Drop the connection when no traffic follows a PING for this long (HEARTBEAT_TIMEOUT).
    public static var heartbeatTimeout: Self { Self(ZMQ_HEARTBEAT_TIMEOUT, "ZMQ_HEARTBEAT_TIMEOUT", .milliseconds) }
    /// How long a connecting socket waits before trying again after a failed or lost connection (RECONNECT_IVL).
    public static var reconnectInterval: Self { Self(ZMQ_RECONNECT_IVL, "ZMQ_RECONNECT_IVL", .milliseconds) }
    /// The longest wait between attempts: each failure doubles the wait up to this (RECONNECT_IVL_MAX; zero:
    /// no back-off, always ``reconnectInterval``).
    public static var reconnectIntervalMax: Self {
        Self(ZMQ_RECONNECT_IVL_MAX, "ZMQ_RECONNECT_IVL_MAX", .milliseconds)
    }
}

extension SocketOption where Value == Bool {
    /// A restarted peer with a known routing id takes over the old connection (ROUTER_HANDOVER, write-only).
    public static var routerHandover: Self {
        Self(ZMQ_ROUTER_HANDOVER, "ZMQ_ROUTER_HANDOVER", .flag, readable: false)
    }
    /// Sending to an unknown routing id fails with ``ZeroMQError/Code/hostUnreachable`` instead of
    /// silently dropping (ROUTER_MANDATORY, write-only).
    public static var routerMandatory: Self {
        Self(ZMQ_ROUTER_MANDATORY, "ZMQ_ROUTER_MANDATORY", .flag, readable: false)
    }
    /// An XPUB passes on every subscribe and unsubscribe, duplicates included (XPUB_VERBOSER, write-only).
    public static var extendedPublisherVerboser: Self {
        Self(ZMQ_XPUB_VERBOSER, "ZMQ_XPUB_VERBOSER", .flag, readable: false)
    }
    /// An XPUB passes subscriptions on without applying them: the application decides, for the subscriber whose
    /// subscription it just received, by setting ``subscribe`` or ``unsubscribe`` on the XPUB (XPUB_MANUAL,
    /// write-only).
    public static var extendedPublisherManual: Self {
        Self(ZMQ_XPUB_MANUAL, "ZMQ_XPUB_MANUAL", .flag, readable: false)
    }
    /// Queue messages only to completed connections (IMMEDIATE).
    public static var immediate: Self { Self(ZMQ_IMMEDIATE, "ZMQ_IMMEDIATE", .flag) }
    /// This socket is a CURVE server; set ``curveSecretKey`` too (CURVE_SERVER).
    public static var curveServer: Self { Self(ZMQ_CURVE_SERVER, "ZMQ_CURVE_SERVER", .flag) }
}

extension SocketOption where Value == [UInt8] {
    /// The identity a DEALER or ROUTER presents to a ROUTER peer, 1 to 255 bytes (ROUTING_ID).
    public static var routingID: Self { Self(ZMQ_ROUTING_ID, "ZMQ_ROUTING_ID", .binary(capacity: 255)) }
    /// Subscribe a SUB socket to messages whose first frame starts with these bytes (write-only).
    public static var subscribe: Self { Self(ZMQ_SUBSCRIBE, "ZMQ_SUBSCRIBE", .binary(capacity: 0), readable: false) }
    /// Remove a subscription made with ``subscribe`` (write-only).
    public static var unsubscribe: Self {
        Self(ZMQ_UNSUBSCRIBE, "ZMQ_UNSUBSCRIBE", .binary(capacity: 0), readable: false)
    }
    /// A message an XPUB sends to every new subscriber, which must subscribe to it to see it (write-only).
    /// libzmq sends it when the XPUB next processes its commands: on its next poll, receive or send.
    public static var extendedPublisherWelcomeMessage: Self {
        Self(ZMQ_XPUB_WELCOME_MSG, "ZMQ_XPUB_WELCOME_MSG", .binary(capacity: 0), readable: false)
    }
}

extension SocketOption where Value == CurveKey {
    /// This socket's long-term CURVE public key (CURVE_PUBLICKEY).
    public static var curvePublicKey: Self { Self(ZMQ_CURVE_PUBLICKEY, "ZMQ_CURVE_PUBLICKEY", .curveKey) }
    /// This socket's long-term CURVE secret key (CURVE_SECRETKEY).
    public static var curveSecretKey: Self { Self(ZMQ_CURVE_SECRETKEY, "ZMQ_CURVE_SECRETKEY", .curveKey) }
    /// On a client, the public key of the server it connects to (CURVE_SERVERKEY).
    public static var curveServerKey: Self { Self(ZMQ_CURVE_SERVERKEY, "ZMQ_CURVE_SERVERKEY", .curveKey) }
}

extension SocketOption where Value == String {
    /// The ZAP domain this socket's handshakes are authenticated in (ZAP_DOMAIN).
    public static var zapDomain: Self { Self(ZMQ_ZAP_DOMAIN, "ZMQ_ZAP_DOMAIN", .text(capacity: 256)) }
    /// The last endpoint bound or connected, wildcards resolved (LAST_ENDPOINT, read-only).
    public static var lastEndpoint: Self { Self(ZMQ_LAST_ENDPOINT, "ZMQ_LAST_ENDPOINT", .text(capacity: 1024)) }
}
