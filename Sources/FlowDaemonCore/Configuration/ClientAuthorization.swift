/// A client allowed in with CURVE: its id, its public key (Z85) and what it may do (`nil`: everything).
public struct ClientAuthorization: Sendable, Hashable {
    /// The id the client says HELLO under.
    public var id: String
    /// Its CURVE public key, 40 characters of Z85.
    public var key: String
    /// The sessions and roles it is granted; `nil` for every session and every role.
    public var grant: ClientGrant?

    /// A client `id` with `key` and `grant`.
    public init(id: String, key: String, grant: ClientGrant? = nil) {
        self.id = id
        self.key = key
        self.grant = grant
    }
}

extension ClientAuthorization {
    /// Reads `ID=PUBLIC_KEY[:SESSIONS[:ROLES]]`, as `--authorize` and `FLOWD_AUTHORIZED_KEYS` take it.
    /// - Throws: ``ConfigurationError`` saying what the form is.
    public init(parsing entry: String) throws {
        let form =
            "an authorized client is ID=PUBLIC_KEY (the 40 characters from `flowd keygen`), optionally followed by :SESSIONS[:ROLES] (kiosk-7,kiosk-8:stepper,presenter), not '\(entry.prefix(64))'"
        guard let equals = entry.firstIndex(of: "=") else { throw ConfigurationError(form) }
        let id = String(entry[..<equals])
        let rest = entry[entry.index(after: equals)...]
        // A Z85 key may hold ':' itself: it is the first 40 characters.
        let key = String(rest.prefix(40))
        guard !id.isEmpty, key.count == 40 else { throw ConfigurationError(form) }
        let grantText = rest.dropFirst(40)
        guard !grantText.isEmpty else {
            self.init(id: id, key: key)
            return
        }
        guard grantText.first == ":" else { throw ConfigurationError(form) }
        do {
            self.init(id: id, key: key, grant: try ClientGrant(parsing: String(grantText.dropFirst())))
        } catch {
            throw ConfigurationError("\(id.prefix(64))=…: \(error)")
        }
    }
}
