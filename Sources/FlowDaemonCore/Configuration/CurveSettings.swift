/// CURVE for flowd's sockets: its secret key, and the clients allowed in, by the id each key may use.
public struct CurveSettings: Sendable, Hashable {
    /// flowd's secret key, as 40 characters of Z85 (its public key is derived from it).
    public var secretKey: String
    /// The allowed clients: connection id → public key (Z85). A client may only say HELLO with its key's id.
    public var authorizedKeys: [String: String]
    /// What each client id may do; an id without a grant may act in every session, in every role.
    public var grants: [String: ClientGrant]

    /// CURVE with flowd's `secretKey`, the `authorizedKeys` of the clients allowed in and their `grants`.
    public init(secretKey: String, authorizedKeys: [String: String], grants: [String: ClientGrant] = [:]) {
        self.secretKey = secretKey
        self.authorizedKeys = authorizedKeys
        self.grants = grants
    }
}
