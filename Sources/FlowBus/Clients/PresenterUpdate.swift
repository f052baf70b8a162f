import FlowCore

/// What a presenter must do next, in order: rebuild everything, or apply one navigation.
public enum PresenterUpdate: Sendable, Hashable {
    /// Throw away what the window shows and build it from nothing with these commands (at start, and whenever
    /// the client had to resync).
    case rebuild(Rebuild)
    /// Apply one navigation's commands, in order, as a whole.
    case navigate(Navigation)

    /// The screens as they are once this update is applied.
    public var screens: ScreenTree {
        switch self {
        case .rebuild(let rebuild): rebuild.screens
        case .navigate(let navigation): navigation.screens
        }
    }

    /// The commands to apply.
    public var commands: [NavigationCommand] {
        switch self {
        case .rebuild(let rebuild): rebuild.commands
        case .navigate(let navigation): navigation.commands
        }
    }
}

/// Everything a presenter shows, as the commands that build it from an empty window.
public struct Rebuild: Sendable, Hashable {
    /// Why the window is rebuilt.
    public var reason: RebuildReason
    /// The commands that build the window.
    public var commands: [NavigationCommand]
    /// The number of the last navigation the rebuild includes.
    public var sequence: UInt64
    /// The screens once built.
    public var screens: ScreenTree
}

/// One navigation's commands for this presenter.
public struct Navigation: Sendable, Hashable {
    /// The navigation's number in this presenter's stream.
    public var sequence: UInt64
    /// The commands, in order.
    public var commands: [NavigationCommand]
    /// The flow that navigated.
    public var flow: FlowID
    /// The step it navigated to, when a step caused it.
    public var step: Step?
    /// The screens once the commands are applied.
    public var screens: ScreenTree
}

/// Why a presenter rebuilds its window.
public enum RebuildReason: String, Sendable, Hashable {
    /// The presenter has just connected (first build, or a restarted process taking its screens back).
    case start
    /// The connection to flowd was lost and is back; navigations may have been missed.
    case reconnected
    /// A navigation was missed (a gap in the sequence numbers).
    case gap
    /// flowd restarted: its sessions began again.
    case daemonRestarted
    /// A navigation did not fit the screens the client had; the daemon's view wins.
    case inconsistent
}
