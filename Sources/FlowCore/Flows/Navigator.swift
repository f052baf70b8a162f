/// What a flow uses inside `navigate(to:)` to make presentables and change what is on screen.
///
/// Each call becomes a ``NavigationCommand`` for the presenter concerned. Calls are checked against what is
/// on screen at that moment (including the effect of earlier calls in the same navigation); a call that does
/// not fit — pushing onto tabs, popping an empty stack — is left out and reported as a
/// ``NavigationEvent/Kind/commandRejected(flow:operation:reason:)`` event, and the rest goes on.
public struct Navigator: Sendable {
    /// The session.
    public let session: SessionID
    /// The flow navigating.
    public let flow: FlowID
    /// The flow's root presentable: the default container of every call.
    public let root: PresentableID
    /// Data set on the session over the bus.
    public let sessionData: JSONObject
    /// The presenter that shows the flow's root (the session's main presenter while the root is not on screen).
    public let presenter: PresenterID

    /// What is on screen now, with this navigation's calls so far applied.
    public internal(set) var screens: ScreenTree
    var ids: IDAllocator
    /// How many presentables may be on screen (``EngineOptions/maxPresentables``).
    let maxPresentables: Int
    /// The presentables this navigation made, in order: their ids follow one another from `firstMade`.
    private var made: [PresentableDescription] = []
    private let firstMade: UInt32
    var childFlows: [FlowID: any Flow] = [:]
    var commands = PresenterCommands()
    var rejections: [(operation: String, reason: FlowCoreError)] = []
    var removed: [PresentableID] = []
    /// Presentables whose placing was left out for ``maxPresentables``: they are not contributed or started.
    var leftOut: Set<PresentableID> = []

    init(
        session: SessionID,
        flow: FlowID,
        root: PresentableID,
        sessionData: JSONObject,
        mainPresenter: PresenterID,
        screens: ScreenTree,
        ids: IDAllocator,
        maxPresentables: Int
    ) {
        self.session = session
        self.flow = flow
        self.root = root
        self.sessionData = sessionData
        self.screens = screens
        self.ids = ids
        self.firstMade = ids.lastPresentable &+ 1
        self.maxPresentables = maxPresentables
        self.presenter = screens[root]?.presenter ?? mainPresenter
    }

    // MARK: Making presentables

    /// Makes a screen (not yet on screen): place it with ``push(_:onto:)``, ``present(_:over:)``...
    public mutating func makeScreen(_ name: String, _ parameters: JSONObject = [:]) -> PresentableID {
        make(style: .screen, name: name, parameters: parameters, flow: flow)
    }

    /// Makes a container (a stack, tabs or a split) owned by this flow.
    public mutating func makeContainer(
        _ style: PresentableStyle,
        _ name: String,
        _ parameters: JSONObject = [:]
    ) -> PresentableID {
        make(style: style, name: name, parameters: parameters, flow: flow)
    }

    /// Makes a child flow and its root presentable. Place ``ChildFlow/root`` on screen, then return
    /// `.contribute(child, stepper: ...)` to start it.
    public mutating func makeFlow(_ child: some Flow) -> ChildFlow {
        let id = ids.nextFlow()
        let root = child.root
        let rootID = make(style: root.style, name: root.name, parameters: root.parameters, flow: id)
        childFlows[id] = child
        return ChildFlow(id: id, root: rootID)
    }

    private mutating func make(
        style: PresentableStyle,
        name: String,
        parameters: JSONObject,
        flow: FlowID
    ) -> PresentableID {
        let id = ids.nextPresentable()
        made.append(PresentableDescription(id: id, style: style, name: name, parameters: parameters, flow: flow))
        return id
    }

    /// The description of a presentable this navigation made (`nil` for any other id).
    func madeDescription(of id: PresentableID) -> PresentableDescription? {
        let offset = Int(id.rawValue) - Int(firstMade)
        return made.indices.contains(offset) ? made[offset] : nil
    }

    // MARK: Changing the screen

    /// Makes `presentable` the root of a presenter's window (by default the presenter of this flow).
    public mutating func setWindowRoot(_ presentable: PresentableID, presenter: PresenterID? = nil) {
        place(presentable, "setWindowRoot", presenter: presenter ?? self.presenter) { .setWindowRoot($0) }
    }

    /// Pushes `presentable` onto a stack (by default this flow's root).
    public mutating func push(_ presentable: PresentableID, onto stack: PresentableID? = nil) {
        let stack = stack ?? root
        place(presentable, "push", presenter: screens[stack]?.presenter) { .push($0, onto: stack) }
    }

    /// Presents `presentable` modally over `host`; by default over whatever is topmost above this flow's root.
    public mutating func present(_ presentable: PresentableID, over host: PresentableID? = nil) {
        var over = host ?? root
        if host == nil {
            while let presented = screens[over]?.presented {
                over = presented
            }
        }
        place(presentable, "present", presenter: screens[over]?.presenter) { .present($0, over: over) }
    }

    /// Shows `presentable` as the master of a split (by default this flow's root).
    public mutating func setMaster(_ presentable: PresentableID, in split: PresentableID? = nil) {
        let split = split ?? root
        place(presentable, "setMaster", presenter: screens[split]?.presenter) { .setMaster(split, $0) }
    }

    /// Shows `presentable` as the detail of a split (by default this flow's root).
    public mutating func setDetail(_ presentable: PresentableID, in split: PresentableID? = nil) {
        let split = split ?? root
        place(presentable, "setDetail", presenter: screens[split]?.presenter) { .setDetail(split, $0) }
    }

    /// Replaces the tabs of a tab container (by default this flow's root) and selects one.
    public mutating func setTabs(_ tabs: [PresentableID], in container: PresentableID? = nil, selected: Int = 0) {
        let container = container ?? root
        var descriptions: [PresentableDescription] = []
        for tab in tabs {
            guard let description = madeDescription(tab, operation: "setTabs") else {
                return
            }
            descriptions.append(description)
        }
        run(.setTabs(container, descriptions, selected: selected), presenter: screens[container]?.presenter)
    }

    /// Selects a tab of a tab container (by default this flow's root).
    public mutating func selectTab(_ index: Int, in container: PresentableID? = nil) {
        let container = container ?? root
        run(.selectTab(container, index: index), presenter: screens[container]?.presenter)
    }

    /// Pops the top item of a stack (by default this flow's root).
    public mutating func pop(_ stack: PresentableID? = nil) {
        let stack = stack ?? root
        // Read without keeping the stack's items: a reference kept to them made the pop copy them.
        let (count, belowTop) = screens.nodes[stack].map { ($0.items.count, $0.items.dropLast().last) } ?? (0, nil)
        guard let belowTop else {
            reject("pop", FlowCoreError(.outOfRange, "pop: the stack \(stack) has \(count) item(s), nothing to pop"))
            return
        }
        run(.pop(stack: stack, to: belowTop), presenter: screens[stack]?.presenter)
    }

    /// Pops a stack (by default this flow's root) back to its first item; a stack that holds one item or none is
    /// there already (as UIKit's `popToRootViewController`, nothing happens).
    public mutating func popToRoot(_ stack: PresentableID? = nil) {
        let stack = stack ?? root
        guard let items = screens[stack]?.items else {
            reject("pop", FlowCoreError(.outOfRange, "pop: the stack \(stack) is not on screen"))
            return
        }
        guard items.count > 1, let first = items.first else { return }
        run(.pop(stack: stack, to: first), presenter: screens[stack]?.presenter)
    }

    /// Removes a presentable from the screen, wherever it is, with everything it holds or presents.
    public mutating func dismiss(_ presentable: PresentableID) {
        run(.dismiss(presentable), presenter: screens[presentable]?.presenter)
    }

    /// Dismisses whatever is presented modally over `host` (by default this flow's root), if anything.
    public mutating func dismissPresented(over host: PresentableID? = nil) {
        if let presented = screens[host ?? root]?.presented {
            dismiss(presented)
        }
    }

    // MARK: Applying

    private mutating func place(
        _ presentable: PresentableID,
        _ operation: String,
        presenter: PresenterID?,
        command: (PresentableDescription) -> NavigationCommand
    ) {
        guard let description = madeDescription(presentable, operation: operation) else {
            return
        }
        run(command(description), presenter: presenter)
    }

    private mutating func madeDescription(_ id: PresentableID, operation: String) -> PresentableDescription? {
        if let description = madeDescription(of: id), screens[id] == nil {
            return description
        }
        let reason =
            screens[id] != nil
            ? FlowCoreError(.alreadyPlaced, "\(operation): \(id) is already on screen")
            : FlowCoreError(.unknownPresentable, "\(operation): \(id) was not made in this navigation")
        reject(operation, reason)
        return nil
    }

    private mutating func run(_ command: NavigationCommand, presenter: PresenterID?) {
        // Without a presenter the container is not on screen, and applying the command says so.
        let target = presenter ?? self.presenter
        let placing = command.placedCount
        if placing > 0, screens.nodes.count + placing > maxPresentables {
            reject(
                command.operation,
                FlowCoreError(
                    .limitReached,
                    "\(command.operation): the session has \(screens.nodes.count) presentables on screen and may have \(maxPresentables) (maxPresentables); pop or dismiss before placing more"
                )
            )
            leftOut.formUnion(command.placed.map(\.id))
            return
        }
        do {
            let change = try screens.apply(command, for: target)
            commands.append(command, for: target)
            // Most navigations remove with one command at most: its list is taken as it is.
            if removed.isEmpty {
                removed = change.removed
            } else {
                removed += change.removed
            }
        } catch {
            reject(command.operation, error)
        }
    }

    private mutating func reject(_ operation: String, _ reason: FlowCoreError) {
        rejections.append((operation, reason))
    }
}

/// Allocates a session's flow and presentable ids, in order.
struct IDAllocator: Sendable, Hashable, Codable {
    var lastFlow: UInt32 = 0
    var lastPresentable: UInt32 = 0
    var lastToken: UInt64 = 0

    mutating func nextFlow() -> FlowID {
        lastFlow += 1
        return FlowID(lastFlow)
    }

    mutating func nextPresentable() -> PresentableID {
        lastPresentable += 1
        return PresentableID(lastPresentable)
    }

    mutating func nextToken() -> StepToken {
        lastToken += 1
        return StepToken(lastToken)
    }
}
