import FlowCore

extension PresentableDescription: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        self.init(
            id: try fields.id("id"),
            style: try fields.oneOf("style", as: PresentableStyle.self),
            name: try fields.string("name"),
            parameters: try fields.object("parameters"),
            flow: try fields.optionalID("flow")
        )
    }

    public var wireValue: JSONValue {
        .object(JSONObjectBuilder.object(writeMembers))
    }

    /// The description's members given one by one (every COMMANDS is written straight as text).
    @inlinable
    public func writeMembers<Members: JSONMembers>(to members: inout Members) {
        members.member("id", Int(id.rawValue))
        members.member("style", style.rawValue)
        members.member("name", name)
        members.member("parameters", .object(parameters))
        if let flow { members.member("flow", Int(flow.rawValue)) }
    }
}

extension NavigationCommand: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        func presentable() throws(WireFieldError) -> PresentableDescription {
            try fields.value("presentable", as: PresentableDescription.self)
        }
        func id(_ key: String) throws(WireFieldError) -> PresentableID {
            try fields.id(key)
        }
        let operation = try fields.string("op")
        switch operation {
        case "setWindowRoot": self = .setWindowRoot(try presentable())
        case "push": self = .push(try presentable(), onto: try id("container"))
        case "pop": self = .pop(stack: try id("container"), to: try id("target"))
        case "present": self = .present(try presentable(), over: try id("container"))
        case "dismiss": self = .dismiss(try id("target"))
        case "setTabs":
            self = .setTabs(
                try id("container"),
                try fields.values("tabs", as: PresentableDescription.self),
                selected: try fields.integer("selected")
            )
        case "selectTab": self = .selectTab(try id("container"), index: try fields.integer("index"))
        case "setMaster": self = .setMaster(try id("container"), try presentable())
        case "setDetail": self = .setDetail(try id("container"), try presentable())
        default: throw WireFieldError("\"\(fields.name("op"))\": unknown navigation command \"\(operation)\"")
        }
    }

    public var wireValue: JSONValue {
        .object(JSONObjectBuilder.object(writeMembers))
    }

    /// The command's members given one by one: `op`, then its own.
    @inlinable
    public func writeMembers<Members: JSONMembers>(to members: inout Members) {
        members.member("op", operation)
        func presentable(_ description: PresentableDescription) {
            members.member("presentable", object: description.writeMembers)
        }
        func id(_ key: StaticString, _ value: PresentableID) {
            members.member(key, Int(value.rawValue))
        }
        switch self {
        case .setWindowRoot(let description):
            presentable(description)
        case .push(let description, let stack):
            presentable(description)
            id("container", stack)
        case .pop(let stack, let target):
            id("container", stack)
            id("target", target)
        case .present(let description, let over):
            presentable(description)
            id("container", over)
        case .dismiss(let target):
            id("target", target)
        case .setTabs(let tabs, let descriptions, let selected):
            id("container", tabs)
            members.member("tabs", objects: descriptions) { $0.writeMembers(to: &$1) }
            members.member("selected", selected)
        case .selectTab(let tabs, let index):
            id("container", tabs)
            members.member("index", index)
        case .setMaster(let split, let description), .setDetail(let split, let description):
            id("container", split)
            presentable(description)
        }
    }
}

extension VisibilityReport: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        self.init(
            visibility: try fields.oneOf("visibility", as: Visibility.self),
            presentables: try fields.ids("presentables")
        )
    }

    public var wireValue: JSONValue {
        ["visibility": .string(visibility.rawValue), "presentables": .array(presentables.map(\.wireValue))]
    }
}

extension CommandsMessage: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        self.init(
            presenter: try fields.string("presenter"),
            sequence: try fields.unsigned("sequence"),
            epoch: try fields.string("epoch"),
            commands: try fields.values("commands", as: NavigationCommand.self),
            flow: try fields.id("flow"),
            step: try fields.optionalValue("step", as: Step.self)
        )
    }

    public var wireValue: JSONValue {
        .object(JSONObjectBuilder.object(writeMembers))
    }

    /// The batch's members given one by one (written straight as text on the hot path).
    @inlinable
    public func writeMembers<Members: JSONMembers>(to members: inout Members) {
        members.member("presenter", presenter)
        members.member("sequence", Int(clamping: sequence))
        members.member("epoch", epoch)
        members.member("commands", objects: commands) { $0.writeMembers(to: &$1) }
        members.member("flow", Int(flow.rawValue))
        if let step { members.member("step", object: step.writeMembers) }
    }
}
