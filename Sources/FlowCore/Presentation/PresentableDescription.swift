/// What a presentable is: a screen, or a container that holds other presentables.
public enum PresentableStyle: String, Sendable, Hashable, Codable, CaseIterable {
    /// A leaf: one screen, drawn by the presenter from its name and parameters.
    case screen
    /// A navigation stack: items pushed and popped (UINavigationController).
    case stack
    /// Tabs, one selected (UITabBarController).
    case tabs
    /// Master and detail side by side (UISplitViewController).
    case split
}

/// Everything a presenter needs to draw a presentable: carried by the commands that place it.
public struct PresentableDescription: Sendable, Hashable, Codable {
    /// The id the engine allocated; visibility reports use it.
    public let id: PresentableID
    /// Screen or container.
    public let style: PresentableStyle
    /// The screen's type (`MovieDetail`) or the container's name (`wishlist`): what the presenter draws.
    public let name: String
    /// Data for the presenter, such as `{"movieId": 23452, "title": "Wishlist"}`.
    public let parameters: JSONObject
    /// The flow that made it, or whose root it is.
    public let flow: FlowID?

    /// Creates a description; the engine allocates these.
    public init(id: PresentableID, style: PresentableStyle, name: String, parameters: JSONObject = [:], flow: FlowID?) {
        self.id = id
        self.style = style
        self.name = name
        self.parameters = parameters
        self.flow = flow
    }
}
