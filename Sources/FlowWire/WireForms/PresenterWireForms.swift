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
        var object: JSONObject = [
            "id": id.wireValue, "style": .string(style.rawValue), "name": .string(name),
            "parameters": .object(parameters),
        ]
        object["flow"] = flow?.wireValue
        return .object(object)
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
        var object: JSONObject = ["op": .string(operation)]
        switch self {
        case .setWindowRoot(let description):
            object["presentable"] = description.wireValue
        case .push(let description, let stack):
            object["presentable"] = description.wireValue
            object["container"] = stack.wireValue
        case .pop(let stack, let target):
            object["container"] = stack.wireValue
            object["target"] = target.wireValue
        case .present(let description, let over):
            object["presentable"] = description.wireValue
            object["container"] = over.wireValue
        case .dismiss(let target):
            object["target"] = target.wireValue
        case .setTabs(let tabs, let descriptions, let selected):
            object["container"] = tabs.wireValue
            object["tabs"] = .array(descriptions.map(\.wireValue))
            object["selected"] = .int(selected)
        case .selectTab(let tabs, let index):
            object["container"] = tabs.wireValue
            object["index"] = .int(index)
        case .setMaster(let split, let description), .setDetail(let split, let description):
            object["container"] = split.wireValue
            object["presentable"] = description.wireValue
        }
        return .object(object)
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
        var object: JSONObject = [
            "presenter": .string(presenter), "sequence": .int(Int(clamping: sequence)), "epoch": .string(epoch),
            "commands": .array(commands.map(\.wireValue)), "flow": flow.wireValue,
        ]
        object["step"] = step?.wireValue
        return .object(object)
    }
}
