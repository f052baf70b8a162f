/// Where a presentable sits in its parent.
public enum Placement: String, Sendable, Hashable, Codable {
    /// The root of a presenter's window.
    case windowRoot
    /// An item of a stack.
    case stackItem
    /// A tab of a tab container.
    case tab
    /// The master of a split.
    case master
    /// The detail of a split.
    case detail
    /// Presented modally over its parent.
    case modal
}

/// One presentable on screen, with what it holds.
public struct ScreenNode: Sendable, Hashable, Codable {
    // Coded under the names it always had; stored in an order (and the selected tab in 32 bits) that leaves no gaps:
    // 104 bytes, not 112, for each presentable of each session.
    private enum CodingKeys: String, CodingKey {
        case description, presenter, parent, placement, items
        case storedSelectedTab = "selectedTab"
        case master, detail, presented
    }

    /// What the presentable is.
    public let description: PresentableDescription
    /// The presenter that shows it.
    public let presenter: PresenterID
    /// A stack's items, bottom to top, or a tab container's tabs, in order.
    public internal(set) var items: [PresentableID] = []
    /// The presentable that holds or presents it; `nil` for a window root.
    public let parent: PresentableID?
    /// A split's master.
    public internal(set) var master: PresentableID?
    /// A split's detail.
    public internal(set) var detail: PresentableID?
    /// What it presents modally, if anything.
    public internal(set) var presented: PresentableID?
    /// How it sits in its parent.
    public let placement: Placement
    /// ``selectedTab``, kept in 32 bits: a tab's index is checked against the tabs there are (far fewer).
    private var storedSelectedTab: Int32?

    /// The selected tab's index, for tab containers with tabs.
    public internal(set) var selectedTab: Int? {
        get { storedSelectedTab.map(Int.init) }
        set { storedSelectedTab = newValue.map { Int32($0) } }
    }

    init(
        description: PresentableDescription,
        presenter: PresenterID,
        parent: PresentableID?,
        placement: Placement
    ) {
        self.description = description
        self.presenter = presenter
        self.parent = parent
        self.placement = placement
    }

    /// The id of the presentable.
    public var id: PresentableID { description.id }

    /// Everything it holds or presents, in drawing order: items, master, detail, then the modal.
    public var children: [PresentableID] {
        items + [master, detail, presented].compactMap { $0 }
    }
}
