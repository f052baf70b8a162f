import FlowStore

/// A question the event loop asks a fleet's store, through the journal writer (the store's one thread).
enum FleetRequest: Sendable, Hashable {
    /// Who serves this session: here (claimed when `claiming`, or taken over from an instance whose lease expired),
    /// elsewhere, or nowhere.
    case locate(String, claiming: Bool)
    /// Take over this instance's share of the sessions of dead instances, at most this many.
    case adoptOrphans(limit: Int)
    /// The sessions this instance owns in the store now, if another instance took some over since the last look.
    case owned
    /// The fleet's instances.
    case members
}

/// The store's answer to a ``FleetRequest``.
enum FleetAnswer: Sendable {
    case located(String, Result<SessionPlacement, StoreError>)
    case adopted(Result<StoredState, StoreError>)
    case owned(Result<Set<String>?, StoreError>)
    case members(Result<[FleetMember], StoreError>)
}
