import FlowCore
import FlowWire
import Foundation
import Synchronization
import ZeroMQ

/// The part of a client that callers and the connection's thread share: the request queue (with its wake-up),
/// the count of outstanding steps, and what the thread publishes (the screens, the welcome). Every API call goes
/// through it; only the thread touches the sockets.
final class BusConnection: Sendable {
    let setup: ConnectionSetup
    let wakeup: WakePipe
    /// The presenter's updates, when the connection is a presenter's.
    let updates: UpdateQueue?
    /// The guard questions, when the connection is a guard's.
    let questions: AsyncStream<GuardClient.Question>.Continuation?
    /// The screens as the presenter's stream last described them.
    let screens = Mutex(ScreenTree())
    /// The daemon's last WELCOME.
    let welcome = Mutex<Welcome?>(nil)

    private let queue = Mutex<(requests: [Request], closed: Bool)>(([], false))
    private let outstanding = Atomic<Int>(0)

    /// One context for every client of the process: its I/O thread is shared, and it is never terminated.
    static let context: Result<Context, ZeroMQError> = Result { () throws(ZeroMQError) in try Context() }

    private init(
        setup: ConnectionSetup,
        updates: UpdateQueue?,
        questions: AsyncStream<GuardClient.Question>.Continuation?
    ) throws(FlowBusError) {
        self.setup = setup
        self.updates = updates
        self.questions = questions
        do {
            self.wakeup = try WakePipe()
        } catch {
            throw FlowBusError(.invalidOptions, "cannot make a pipe: \(error.message)")
        }
    }

    /// Starts the connection's thread and waits until flowd welcomes the client.
    /// - Throws: ``FlowBusError`` `unreachable` when flowd does not answer within the connect timeout,
    ///   `refused` when it refuses the HELLO, `invalidOptions` when an endpoint or key is unusable.
    static func open(
        _ setup: ConnectionSetup,
        updates: UpdateQueue? = nil,
        questions: AsyncStream<GuardClient.Question>.Continuation? = nil
    ) async throws(FlowBusError) -> BusConnection {
        let connection = try BusConnection(setup: setup, updates: updates, questions: questions)
        let registered = PendingReply<Void>()
        do {
            try await registered.wait {
                let thread = Thread {
                    ConnectionLoop.run(connection, registered: registered)
                }
                thread.name = "flowbus \(setup.id)"
                thread.start()
            }
        } catch {
            connection.enqueue(.close(done: nil))
            throw error
        }
        return connection
    }

    /// Hands a request to the thread. Returns `false` (and the request is not taken) once the connection is closed.
    @discardableResult
    func enqueue(_ request: Request) -> Bool {
        let (taken, first) = queue.withLock { queue -> (Bool, Bool) in
            guard !queue.closed else { return (false, false) }
            queue.requests.append(request)
            return (true, queue.requests.count == 1)
        }
        // Only the first request of a batch wakes the thread: while it has not taken them, the wake-up is pending.
        if first {
            wakeup.signal()
        }
        return taken
    }

    /// The requests queued since the last call (the thread's side).
    func takeRequests() -> [Request] {
        queue.withLock { queue in
            defer { queue.requests = [] }
            return queue.requests
        }
    }

    /// Refuses every later request and returns those still queued (the thread's side, when it stops).
    func closeQueue() -> [Request] {
        queue.withLock { queue in
            queue.closed = true
            defer { queue.requests = [] }
            return queue.requests
        }
    }

    /// Whether the connection still takes requests.
    var isOpen: Bool {
        queue.withLock { !$0.closed }
    }

    /// Counts one more step waiting for its fate.
    /// - Throws: `queueFull` when ``ClientOptions/maxOutstandingSteps`` already wait.
    func reserveStep() throws(FlowBusError) {
        let limit = setup.options.maxOutstandingSteps
        var current = outstanding.load(ordering: .relaxed)
        while true {
            guard current < limit else {
                throw FlowBusError(
                    .queueFull,
                    "\(limit) steps already wait for their fate (is flowd reachable?); emit again later"
                )
            }
            let (exchanged, original) = outstanding.compareExchange(
                expected: current,
                desired: current + 1,
                ordering: .relaxed
            )
            if exchanged { return }
            current = original
        }
    }

    /// How many steps wait for their fate now.
    var waitingSteps: Int {
        outstanding.load(ordering: .relaxed)
    }

    /// Counts one step less waiting for its fate.
    func releaseStep() {
        outstanding.subtract(1, ordering: .relaxed)
    }

    /// Emits a step or deep link and waits for its fate.
    func emit(_ outbound: Outbound) async throws(FlowBusError) -> Fate {
        try outbound.checkLabels()
        try reserveStep()
        let fate = PendingReply<Fate>()
        return try await fate.wait {
            if !enqueue(.emit(outbound, fate: fate)) {
                releaseStep()
                fate.resume(with: .failure(FlowBusError(.closed, "the client is closed")))
            }
        }
    }

    /// Emits a step or deep link without waiting for its fate (it is still resent until acknowledged).
    func post(_ outbound: Outbound) throws(FlowBusError) {
        try outbound.checkLabels()
        try reserveStep()
        guard enqueue(.emit(outbound, fate: nil)) else {
            releaseStep()
            throw FlowBusError(.closed, "the client is closed")
        }
    }

    /// Sends a message once registered.
    func send(_ message: FlowWire.Message, session: String?) throws(FlowBusError) {
        guard enqueue(.send(message, session: session)) else {
            throw FlowBusError(.closed, "the client is closed")
        }
    }

    /// Sends a message that flowd answers with a REPLY (QUERY, SESSION_DATA) and waits for the answer.
    func ask(_ message: FlowWire.Message, session: String?, timeout: Duration) async throws(FlowBusError) -> JSONValue {
        let reply = PendingReply<JSONValue>()
        return try await reply.wait {
            if !enqueue(.ask(message, session: session, reply: reply, timeout: timeout)) {
                reply.resume(with: .failure(FlowBusError(.closed, "the client is closed")))
            }
        }
    }

    /// Sets (or with `nil` removes) a value of `session`'s data and waits for flowd's REPLY.
    func setSessionData(
        _ key: String,
        to value: JSONValue?,
        session: String?,
        timeout: Duration
    ) async throws(FlowBusError) {
        _ = try await ask(
            .sessionData(SessionDataMessage(key: key, value: value ?? .null)),
            session: session,
            timeout: timeout
        )
    }

    /// Says BYE, stops the thread and waits until it has.
    func close() async {
        let done = PendingReply<Void>()
        _ = try? await done.wait {
            if !enqueue(.close(done: done)) {
                done.resume(with: .success(()))
            }
        }
    }
}
