import Dispatch
import Foundation
import Synchronization

/// Answers ZAP authentication requests for every socket of a context (RFC 27/ZAP at `inproc://zeromq.zap.01`).
///
/// Start one per context before binding CURVE servers; while it runs, each handshake is decided by the
/// `authenticate` closure, called on the handler's own thread. When no handler runs, libzmq lets every
/// CURVE client with a valid handshake in.
///
/// ```swift
/// let allowed: Set<CurveKey> = [aliceKey]
/// let zap = try ZAPHandler(context: context) { request in
///     guard let key = request.clientKey, allowed.contains(key) else { return .deny(reason: "unknown key") }
///     return .allow(userID: key.z85)
/// }
/// ```
public final class ZAPHandler: Sendable {
    /// The endpoint libzmq sends ZAP requests to.
    public static let endpoint = "inproc://zeromq.zap.01"

    private let context: Context
    private let stopEndpoint: String
    private let finished = DispatchSemaphore(value: 0)
    private let state = Mutex(State.running)

    private enum State {
        case running
        case stopped
    }

    /// Binds the ZAP endpoint and starts answering on a thread this handler owns.
    /// - Throws: ``ZeroMQError/Code/addressInUse`` when the context already has a ZAP handler.
    public init(context: Context, authenticate: @escaping @Sendable (ZAPRequest) -> ZAPDecision) throws(ZeroMQError) {
        self.context = context
        self.stopEndpoint = "inproc://flowbus-zap-stop-\(UUID().uuidString)"
        let started = DispatchSemaphore(value: 0)
        let startError = Mutex<ZeroMQError?>(nil)
        let loop = ZAPLoop(context: context, stopEndpoint: stopEndpoint, authenticate: authenticate)
        let finished = finished
        let thread = Thread {
            loop.run(
                onStarted: { error in
                    startError.withLock { $0 = error }
                    started.signal()
                }
            )
            finished.signal()
        }
        thread.name = "flowbus-zap"
        thread.start()
        started.wait()
        if let error = startError.withLock({ $0 }) {
            finished.wait()
            state.withLock { $0 = .stopped }
            throw error
        }
    }

    /// Stops answering and waits for the handler's thread to end. Safe to call more than once, from any thread.
    public func stop() {
        let wasRunning = state.withLock { state in
            defer { state = .stopped }
            return state == .running
        }
        guard wasRunning else {
            return
        }
        // If the context is already shut down, the loop sees that by itself and ends.
        // A linger, so that closing the socket right away does not drop the stop before the loop reads it.
        if let signal = try? Socket(.push, context: context, linger: .seconds(1)) {
            _ = try? signal.connect(stopEndpoint)
            _ = try? signal.send(frames: [[]], dontWait: true)
        }
        finished.wait()
    }

    deinit {
        stop()
    }
}

/// The handler thread's work: owns the REP socket and the stop socket.
private struct ZAPLoop: Sendable {
    let context: Context
    let stopEndpoint: String
    let authenticate: @Sendable (ZAPRequest) -> ZAPDecision

    func run(onStarted: (ZeroMQError?) -> Void) {
        let requests: Socket
        let stop: Socket
        do {
            requests = try Socket(.reply, context: context)
            try requests.bind(ZAPHandler.endpoint)
            stop = try Socket(.pull, context: context)
            try stop.bind(stopEndpoint)
        } catch {
            onStarted(error)
            return
        }
        onStarted(nil)
        // Unbound explicitly: closing alone frees the endpoint later, in libzmq's background, and a handler
        // started right after `stop()` returns must be able to bind it.
        defer { try? requests.unbind(ZAPHandler.endpoint) }

        var poller = Poller()
        let requestIndex = poller.register(requests)
        let stopIndex = poller.register(stop)
        while true {
            guard let ready = try? poller.poll(timeout: nil) else {
                return  // The context was shut down.
            }
            if ready.contains(where: { $0.index == stopIndex }) {
                return
            }
            if ready.contains(where: { $0.index == requestIndex }) {
                guard let message = try? requests.receive(dontWait: true) else {
                    continue
                }
                guard (try? requests.send(frames: reply(to: message))) != nil else {
                    return
                }
            }
        }
    }

    /// The reply frames for one request: version, request id, status code, status text, user id, metadata.
    private func reply(to message: Message) -> [[UInt8]] {
        let frames = message.frames
        guard frames.count >= 6, frames[0] == Array("1.0".utf8) else {
            let requestID = frames.count > 1 ? frames[1] : []
            return [bytes("1.0"), requestID, bytes("500"), bytes("malformed ZAP request"), [], []]
        }
        let text = { (index: Int) in String(decoding: frames[index], as: UTF8.self) }
        let mechanism = text(5)
        let clientKey = mechanism == "CURVE" && frames.count >= 7 ? try? CurveKey(bytes: frames[6]) : nil
        let request = ZAPRequest(
            domain: text(2),
            address: text(3),
            routingID: frames[4],
            mechanism: mechanism,
            clientKey: clientKey
        )
        switch authenticate(request) {
        case .allow(let userID):
            return [bytes("1.0"), frames[1], bytes("200"), bytes("OK"), bytes(userID), []]
        case .deny(let reason):
            return [bytes("1.0"), frames[1], bytes("400"), bytes(reason), [], []]
        }
    }
}

private func bytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}
