/// A point in time as the engine sees it: milliseconds since an origin the caller chooses.
///
/// The engine never reads a clock: the caller passes the time in (``FlowEngine/advanceTime(to:)``), so
/// deadlines are tested without sleeping.
public struct EngineTime: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// Milliseconds since the origin.
    public var milliseconds: Int64

    /// Creates a time.
    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// The origin.
    public static let zero = EngineTime(milliseconds: 0)

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// The time `duration` later.
    public static func + (lhs: Self, rhs: Duration) -> Self {
        let (seconds, attoseconds) = rhs.components
        return EngineTime(milliseconds: lhs.milliseconds + seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    public var description: String { "\(milliseconds)ms" }
}

/// Limits and defaults of the engine.
public struct EngineOptions: Sendable, Hashable, Codable {
    /// How long a deep link waits for its session to become ready before it is dropped.
    public var deepLinkWait: Duration = .seconds(10)
    /// How many deep links a session keeps waiting at most.
    public var maxWaitingDeepLinks: Int = 16
    /// How long a guard may take to answer; no answer counts as a refusal.
    public var guardTimeout: Duration = .seconds(2)
    /// How many steps a session keeps queued at most.
    public var maxQueuedSteps: Int = 1024
    /// How many navigations one event may cause in a session; past that (a forward loop), the session's queued
    /// steps are dropped with ``DropReason/tooManySteps``.
    public var maxStepsPerEvent: Int = 10_000
    /// How many presentables a session holds at most: screens and containers on screen, running flows and
    /// contributions, each counted on its own. A command, child flow or contribution beyond is left out (a
    /// ``NavigationEvent/Kind/commandRejected(flow:operation:reason:)`` event, and ``Effects/limitsReached``),
    /// so that a flow that pushes a screen on every step cannot grow its session without bound.
    public var maxPresentables: Int = 1000
    /// How many bytes a session's data holds at most (keys and values, as JSON); a change beyond is refused
    /// with ``FlowCoreError/Code/limitReached``.
    public var maxSessionDataBytes: Int = 64 << 10
    /// How many ended contributions and flows a session remembers, to explain later steps to them.
    public var endedMemory: Int = 32
    /// The presenter that shows a session's root flow.
    public var mainPresenter: PresenterID = .main

    /// The defaults.
    public init() {}
}
