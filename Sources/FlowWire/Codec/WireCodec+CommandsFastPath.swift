import FlowCore

extension WireCodec {
    /// A COMMANDS read in one pass straight into its typed values (what a presenter reads for every navigation):
    /// `nil` when anything is not as flowd writes it — `null`, a number that is not a whole one or out of range, a
    /// style or an operation it does not know, a command without what its operation needs, an escape in a key — and
    /// the general reader then reads the frames again and says what is wrong. Both read the same messages the same
    /// way.
    func commandsFastPath(header: [UInt8], body: [UInt8]) -> Envelope? {
        guard let header = fastHeader(header) else { return nil }
        var presenter: String?
        var sequence: Int?
        var epoch: String?
        var commands: [NavigationCommand]?
        var flow: FlowID?
        var step: Step?
        let read = JSONObjectScanner.scan(body, maximumDepth: WireLimits.maxNesting) { key, value in
            if key.matches("presenter") {
                presenter = value.string()
                return presenter != nil
            } else if key.matches("sequence") {
                sequence = value.integer()
                return sequence != nil
            } else if key.matches("epoch") {
                epoch = value.string()
                return epoch != nil
            } else if key.matches("commands") {
                commands = Self.fastCommands(&value)
                return commands != nil
            } else if key.matches("flow") {
                flow = Self.fastID(&value)
                return flow != nil
            } else if key.matches("step") {
                step = Self.fastStep(&value)
                return step != nil
            }
            return value.skip()
        }
        guard read, let presenter, let sequence, sequence >= 0, let epoch, let commands, let flow else { return nil }
        let message = CommandsMessage(
            presenter: presenter,
            sequence: UInt64(sequence),
            epoch: epoch,
            commands: commands,
            flow: flow,
            step: step
        )
        return Envelope(header: header, message: .commands(message))
    }

    /// An array of commands.
    private static func fastCommands(_ scanner: inout JSONObjectScanner) -> [NavigationCommand]? {
        fastArray(&scanner, of: fastCommand)
    }

    /// An array, each element read by `element` (`nil` as soon as one cannot be).
    private static func fastArray<Element>(
        _ scanner: inout JSONObjectScanner,
        of element: (inout JSONObjectScanner) -> Element?
    ) -> [Element]? {
        var elements: [Element] = []
        let read = scanner.elements { scanner in
            guard let value = element(&scanner) else { return false }
            elements.append(value)
            return true
        }
        return read ? elements : nil
    }

    /// One command: its members are read in any order, then `op` says which of them it needs.
    private static func fastCommand(_ scanner: inout JSONObjectScanner) -> NavigationCommand? {
        var operation: String?
        var presentable: PresentableDescription?
        var container: PresentableID?
        var target: PresentableID?
        var tabs: [PresentableDescription]?
        var selected: Int?
        var index: Int?
        let read = scanner.members { key, value in
            if key.matches("op") {
                operation = value.string()
                return operation != nil
            } else if key.matches("presentable") {
                presentable = fastDescription(&value)
                return presentable != nil
            } else if key.matches("container") {
                container = fastID(&value)
                return container != nil
            } else if key.matches("target") {
                target = fastID(&value)
                return target != nil
            } else if key.matches("tabs") {
                tabs = fastDescriptions(&value)
                return tabs != nil
            } else if key.matches("selected") {
                selected = value.integer()
                return selected != nil
            } else if key.matches("index") {
                index = value.integer()
                return index != nil
            }
            return value.skip()
        }
        guard read, let operation else { return nil }
        switch operation {
        case "setWindowRoot":
            return presentable.map { .setWindowRoot($0) }
        case "push":
            guard let presentable, let container else { return nil }
            return .push(presentable, onto: container)
        case "pop":
            guard let container, let target else { return nil }
            return .pop(stack: container, to: target)
        case "present":
            guard let presentable, let container else { return nil }
            return .present(presentable, over: container)
        case "dismiss":
            return target.map { .dismiss($0) }
        case "setTabs":
            guard let container, let tabs, let selected else { return nil }
            return .setTabs(container, tabs, selected: selected)
        case "selectTab":
            guard let container, let index else { return nil }
            return .selectTab(container, index: index)
        case "setMaster":
            guard let container, let presentable else { return nil }
            return .setMaster(container, presentable)
        case "setDetail":
            guard let container, let presentable else { return nil }
            return .setDetail(container, presentable)
        default:
            return nil
        }
    }

    /// An array of presentables' descriptions (a `setTabs`'s tabs).
    private static func fastDescriptions(_ scanner: inout JSONObjectScanner) -> [PresentableDescription]? {
        fastArray(&scanner, of: fastDescription)
    }

    /// A presentable's description (`id`, `style`, `name` and `parameters` required, `flow` optional).
    private static func fastDescription(_ scanner: inout JSONObjectScanner) -> PresentableDescription? {
        var id: PresentableID?
        var style: PresentableStyle?
        var name: String?
        var parameters: JSONObject?
        var flow: FlowID?
        let read = scanner.members { key, value in
            if key.matches("id") {
                id = fastID(&value)
                return id != nil
            } else if key.matches("style") {
                style = value.string().flatMap(PresentableStyle.init(rawValue:))
                return style != nil
            } else if key.matches("name") {
                name = value.string()
                return name != nil
            } else if key.matches("parameters") {
                parameters = value.object()
                return parameters != nil
            } else if key.matches("flow") {
                flow = fastID(&value)
                return flow != nil
            }
            return value.skip()
        }
        guard read, let id, let style, let name, let parameters else { return nil }
        return PresentableDescription(id: id, style: style, name: name, parameters: parameters, flow: flow)
    }

    /// A presentable's or a flow's id: a whole number from 0 to `UInt32.max`.
    private static func fastID<Tag: IdentifierTag>(_ scanner: inout JSONObjectScanner) -> Identifier<Tag>?
    where Tag.RawValue == UInt32 {
        scanner.integer().flatMap(UInt32.init(exactly:)).map(Identifier.init)
    }
}
