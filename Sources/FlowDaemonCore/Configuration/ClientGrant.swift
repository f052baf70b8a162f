import FlowWire

/// What a CURVE client may do: in which sessions, in which roles. A key without a grant may do everything.
public struct ClientGrant: Sendable, Hashable {
    /// A role a grant allows; `control` is an inspector that may also act (emit steps and deep links, set session
    /// data, end sessions), where `inspector` only reads.
    public enum GrantedRole: String, Sendable, Hashable, CaseIterable {
        case stepper, presenter, `guard`, inspector, control
    }

    /// Session patterns: `*` (every session), an id (that session, and sessions under it: `kiosk-7` covers
    /// `kiosk-7/left`), or a prefix ending in `*` (`kiosk-*`).
    public var sessions: [String]
    /// The roles allowed.
    public var roles: Set<GrantedRole>

    /// A grant of `sessions` in `roles`.
    public init(sessions: [String], roles: Set<GrantedRole>) {
        self.sessions = sessions
        self.roles = roles
    }

    /// Reads `SESSIONS[:ROLES]`: patterns separated by commas, then roles (every role when left out).
    /// - Throws: ``ConfigurationError`` naming what cannot be read.
    public init(parsing text: String) throws {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let sessions = parts[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard !parts[0].isEmpty else {
            throw ConfigurationError("a grant names its sessions (patterns such as kiosk-7, kiosk-* or *)")
        }
        for pattern in sessions where pattern.isEmpty || pattern.contains(where: \.isWhitespace) {
            throw ConfigurationError(
                "'\(pattern.prefix(32))' is not a session pattern: patterns are ids without spaces (kiosk-7), prefixes ending in * (kiosk-*), or *, separated by commas"
            )
        }
        for pattern in sessions where pattern == "-" {
            throw ConfigurationError("'-' is not a session (it stands for no session in topics): grant sessions by id")
        }
        for pattern in sessions where pattern.dropLast().contains("*") {
            throw ConfigurationError("'\(pattern.prefix(32))': a * ends a pattern (kiosk-*), or is the whole of it")
        }
        var roles = Set(GrantedRole.allCases)
        if parts.count > 1 {
            guard !parts[1].isEmpty else {
                throw ConfigurationError(
                    "the roles after ':' are empty: name them (stepper, presenter, guard, inspector, control), or leave ':' out for every role"
                )
            }
            roles = []
            for word in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
                guard let role = GrantedRole(rawValue: String(word)) else {
                    throw ConfigurationError(
                        "'\(word.prefix(32))' is not a role; grant stepper, presenter, guard, inspector or control"
                    )
                }
                roles.insert(role)
            }
        }
        self.init(sessions: sessions, roles: roles)
    }

    /// Whether every session is granted.
    var coversEverySession: Bool { sessions.contains("*") }

    /// Whether the grant covers `session`.
    func covers(_ session: String) -> Bool {
        sessions.contains { pattern in
            if pattern == "*" { return true }
            if pattern.hasSuffix("*") { return session.hasPrefix(pattern.dropLast()) }
            return session == pattern || session.hasPrefix(pattern + "/")
        }
    }

    /// Whether a peer may register in `role`.
    func allows(_ role: Role) -> Bool {
        switch role {
        case .stepper: roles.contains(.stepper)
        case .presenter: roles.contains(.presenter)
        case .guard: roles.contains(.guard)
        case .inspector: roles.contains(.inspector) || roles.contains(.control)
        }
    }

    /// Whether an inspector may act (not only read).
    var controls: Bool { roles.contains(.control) }

    /// Whether a subscription may be applied: every topic it can match must belong to a granted session, and to a
    /// role that reads it (`cmd/` presenters and inspectors, `ins/` and `inb/` inspectors).
    func allowsSubscription(_ topic: String) -> Bool {
        let readable: Bool
        switch topic.prefix(4) {
        case "cmd/": readable = roles.contains(.presenter) || allows(.inspector)
        case "ins/", "inb/": readable = allows(.inspector)
        default:
            // A shorter prefix ("", "c", "in"...) matches several kinds in every session.
            return coversEverySession && allows(.inspector)
        }
        guard readable else { return false }
        if coversEverySession { return true }
        // Only topics that cannot reach past the granted sessions: `cmd/kiosk-7/...` for `kiosk-7`.
        let rest = topic.dropFirst(4)
        return sessions.contains { pattern in
            pattern.hasSuffix("*") ? rest.hasPrefix(pattern.dropLast()) : rest.hasPrefix(pattern + "/")
        }
    }
}

extension ClientGrant: CustomStringConvertible {
    /// `SESSIONS:ROLES`, as `--authorize` takes it: `kiosk-7,kiosk-8:presenter,stepper`.
    public var description: String {
        sessions.joined(separator: ",") + ":"
            + GrantedRole.allCases.filter(roles.contains).map(\.rawValue).joined(separator: ",")
    }
}
