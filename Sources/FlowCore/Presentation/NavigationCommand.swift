/// One change to what a presenter shows. Commands come in batches, one batch per navigation, and a
/// presenter applies a batch as a whole, in order.
public enum NavigationCommand: Sendable, Hashable {
    /// Make `presentable` the root of the presenter's window, replacing (and dismissing) what was there.
    case setWindowRoot(PresentableDescription)
    /// Push `presentable` onto the stack `onto`.
    case push(PresentableDescription, onto: PresentableID)
    /// Pop the stack `stack` until `to` is its top item (everything above `to` is dismissed).
    case pop(stack: PresentableID, to: PresentableID)
    /// Present `presentable` modally over `over`.
    case present(PresentableDescription, over: PresentableID)
    /// Remove a presentable from wherever it is — a modal is dismissed, a stack item is popped with the items
    /// above it, a tab is removed — with everything it holds or presents.
    case dismiss(PresentableID)
    /// Replace the tabs of `tabs` and select one.
    case setTabs(PresentableID, [PresentableDescription], selected: Int)
    /// Select the tab at `index` of `tabs`.
    case selectTab(PresentableID, index: Int)
    /// Show `presentable` as the master of the split `split`, replacing the previous one.
    case setMaster(PresentableID, PresentableDescription)
    /// Show `presentable` as the detail of the split `split`, replacing the previous one.
    case setDetail(PresentableID, PresentableDescription)

    /// The command's name on the wire and in logs.
    public var operation: String {
        switch self {
        case .setWindowRoot: "setWindowRoot"
        case .push: "push"
        case .pop: "pop"
        case .present: "present"
        case .dismiss: "dismiss"
        case .setTabs: "setTabs"
        case .selectTab: "selectTab"
        case .setMaster: "setMaster"
        case .setDetail: "setDetail"
        }
    }

    /// How many presentables this command places on screen (without making a list of them).
    public var placedCount: Int {
        switch self {
        case .setWindowRoot, .push, .present, .setMaster, .setDetail: 1
        case .setTabs(_, let descriptions, _): descriptions.count
        case .pop, .dismiss, .selectTab: 0
        }
    }

    /// The presentables this command places on screen.
    public var placed: [PresentableDescription] {
        switch self {
        case .setWindowRoot(let description), .push(let description, _), .present(let description, _),
            .setMaster(_, let description), .setDetail(_, let description):
            [description]
        case .setTabs(_, let descriptions, _):
            descriptions
        case .pop, .dismiss, .selectTab:
            []
        }
    }
}

extension NavigationCommand: Codable {
    private enum CodingKeys: String, CodingKey {
        case op, presentable, container, target, tabs, selected, index
    }

    // A flat object: {"op": "push", "presentable": {...}, "container": 3}. See the FlowWire specification.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(operation, forKey: .op)
        switch self {
        case .setWindowRoot(let description):
            try container.encode(description, forKey: .presentable)
        case .push(let description, let stack):
            try container.encode(description, forKey: .presentable)
            try container.encode(stack, forKey: .container)
        case .pop(let stack, let target):
            try container.encode(stack, forKey: .container)
            try container.encode(target, forKey: .target)
        case .present(let description, let over):
            try container.encode(description, forKey: .presentable)
            try container.encode(over, forKey: .container)
        case .dismiss(let target):
            try container.encode(target, forKey: .target)
        case .setTabs(let tabs, let descriptions, let selected):
            try container.encode(tabs, forKey: .container)
            try container.encode(descriptions, forKey: .tabs)
            try container.encode(selected, forKey: .selected)
        case .selectTab(let tabs, let index):
            try container.encode(tabs, forKey: .container)
            try container.encode(index, forKey: .index)
        case .setMaster(let split, let description), .setDetail(let split, let description):
            try container.encode(split, forKey: .container)
            try container.encode(description, forKey: .presentable)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let operation = try container.decode(String.self, forKey: .op)
        func presentable() throws -> PresentableDescription {
            try container.decode(PresentableDescription.self, forKey: .presentable)
        }
        func id(_ key: CodingKeys) throws -> PresentableID {
            try container.decode(PresentableID.self, forKey: key)
        }
        switch operation {
        case "setWindowRoot": self = .setWindowRoot(try presentable())
        case "push": self = .push(try presentable(), onto: try id(.container))
        case "pop": self = .pop(stack: try id(.container), to: try id(.target))
        case "present": self = .present(try presentable(), over: try id(.container))
        case "dismiss": self = .dismiss(try id(.target))
        case "setTabs":
            self = .setTabs(
                try id(.container),
                try container.decode([PresentableDescription].self, forKey: .tabs),
                selected: try container.decode(Int.self, forKey: .selected)
            )
        case "selectTab": self = .selectTab(try id(.container), index: try container.decode(Int.self, forKey: .index))
        case "setMaster": self = .setMaster(try id(.container), try presentable())
        case "setDetail": self = .setDetail(try id(.container), try presentable())
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .op,
                in: container,
                debugDescription: "unknown navigation command \"\(operation)\""
            )
        }
    }
}
