import Synchronization
import ZeroMQ

/// Where the WebSocket endpoint's thread leaves what its connections did for flowd's loop, which owns the
/// coordinator: connections opened and closed, and the text messages they sent, in order. The first event after the
/// loop last took them raises a ``WakePipe`` the loop polls beside its sockets.
final class WebSocketInbox: Sendable {
    /// What a connection did.
    enum Event: Sendable {
        case opened(WebSocketConnection)
        case text(WebSocketConnection, [UInt8])
        case closed(WebSocketConnection)
    }

    /// Raised when events wait; the loop polls its read end.
    let wake: WakePipe
    private let events = Mutex<[Event]>([])

    init() throws {
        wake = try WakePipe()
    }

    /// Leaves `event` for the loop.
    func post(_ event: Event) {
        let first = events.withLock { events in
            events.append(event)
            return events.count == 1
        }
        if first {
            wake.signal()
        }
    }

    /// Everything that waits, in order.
    func take() -> [Event] {
        wake.drain()
        return events.withLock { events in
            defer { events.removeAll(keepingCapacity: true) }
            return events
        }
    }
}
