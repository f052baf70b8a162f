/// What a presenter says about a presentable.
public enum Visibility: String, Sendable, Hashable, Codable, CaseIterable {
    /// Nothing reported yet: steps of its contributions are dropped, as if it were hidden.
    case unknown
    /// On screen and seen: its contributions' steps are taken.
    case visible
    /// On screen but covered, in another tab, or its presenter is gone: its contributions' steps are dropped.
    case hidden
    /// Gone for good: its contributions end, and a flow whose root it is ends.
    case dismissed
}
