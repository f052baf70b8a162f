internal import CZeroMQ

/// The ZeroMQ socket patterns this module offers.
public enum SocketType: Sendable, Hashable, CaseIterable {
    /// Routes by peer identity; receives `[routing id, frames...]`, sends to the id in the first frame.
    case router
    /// Asynchronous request side: round-robins sends, fair-queues receives.
    case dealer
    /// Publishes to every matching subscriber; drops at the high-water mark.
    case publisher
    /// A publisher that also receives subscription messages (`0x01` + topic, `0x00` + topic).
    case extendedPublisher
    /// Subscribes to topics by prefix.
    case subscriber
    /// A subscriber that sends its subscriptions as messages (`0x01` + topic, `0x00` + topic).
    case extendedSubscriber
    /// Pushes to a pipeline, round-robin.
    case push
    /// Pulls from a pipeline, fair-queued.
    case pull
    /// One-to-one, usually over inproc between threads.
    case pair
    /// Strict request/reply, request side.
    case request
    /// Strict request/reply, reply side (used by the ZAP handler).
    case reply

    var libzmqValue: Int32 {
        switch self {
        case .router: ZMQ_ROUTER
        case .dealer: ZMQ_DEALER
        case .publisher: ZMQ_PUB
        case .extendedPublisher: ZMQ_XPUB
        case .subscriber: ZMQ_SUB
        case .extendedSubscriber: ZMQ_XSUB
        case .push: ZMQ_PUSH
        case .pull: ZMQ_PULL
        case .pair: ZMQ_PAIR
        case .request: ZMQ_REQ
        case .reply: ZMQ_REP
        }
    }
}
