import FlowCore
import Foundation
import ZeroMQ

/// A peer of a conformance vector: a DEALER on the control socket (its routing id the vector's id) and a SUB on the
/// events socket.
final class VectorPeer {
    let dealer: Socket
    let subscriber: Socket

    init(id: String, context: Context, control: String, events: String) throws {
        dealer = try Socket(.dealer, context: context)
        try dealer.setOption(.routingID, Array(id.utf8))
        try dealer.connect(control)
        subscriber = try Socket(.subscriber, context: context)
        try subscriber.connect(events)
    }

    func send(_ frames: [[UInt8]]) throws {
        try dealer.send(frames: frames)
    }

    /// Subscribes, and waits for the HEARTBEAT flowd publishes on the topic once the subscription is in place.
    func subscribe(_ topic: String, within timeout: Duration) throws {
        try subscriber.subscribe(topic)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let message = try subscriber.receive(within: ContinuousClock.now.duration(to: deadline)) else {
                break
            }
            if message.frames.count == 5, String(decoding: message.frames[2], as: UTF8.self) == "HEARTBEAT" {
                return
            }
        }
        throw ConformanceRunner.Failure(description: "no HEARTBEAT confirmed the subscription to \(topic)")
    }

    /// Waits for the first message of the expected type (others are skipped) and matches it; returns why it does
    /// not match, or `nil`.
    func expect(
        _ expected: JSONValue,
        published: Bool,
        within timeout: Duration,
        captured: inout [String: JSONValue]
    ) throws -> String? {
        guard let wanted = expected.objectValue, let type = wanted["type"]?.stringValue else {
            return "an expectation needs a type"
        }
        let socket = published ? subscriber : dealer
        let deadline = ContinuousClock.now + timeout
        var skipped: [String] = []
        while ContinuousClock.now < deadline {
            guard let message = try socket.receive(within: ContinuousClock.now.duration(to: deadline)) else { break }
            guard let received = VectorMessage(message.frames, published: published) else {
                skipped.append("unreadable \(message.strings)")
                continue
            }
            guard received.type == type else {
                skipped.append(received.type)
                continue
            }
            if let topic = wanted["topic"],
                let problem = VectorMatch.mismatch(topic, .string(received.topic ?? ""), at: "topic", &captured)
            {
                return problem
            }
            if let header = wanted["header"],
                let problem = VectorMatch.mismatch(header, received.header, at: "header", &captured)
            {
                return "\(type): \(problem); got header \(received.header), body \(received.body)"
            }
            if let body = wanted["body"], let problem = VectorMatch.mismatch(body, received.body, at: "body", &captured)
            {
                return "\(type): \(problem); got body \(received.body)"
            }
            return nil
        }
        return "no \(type) within \(timeout) (got \(skipped.isEmpty ? "nothing" : skipped.joined(separator: ", ")))"
    }

    /// A message of `type` that came within `timeout`, described; `nil` when none did.
    func noMessage(of type: String, within timeout: Duration) throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let message = try dealer.receive(within: ContinuousClock.now.duration(to: deadline)) else {
                return nil
            }
            if let received = VectorMessage(message.frames, published: false), received.type == type {
                return "\(received.header) \(received.body)"
            }
        }
        return nil
    }

    func close() {
        try? dealer.setOption(.linger, .zero)
        try? subscriber.setOption(.linger, .zero)
    }
}

/// A message as a vector sees it: its type, header and body as JSON, and on the events socket its topic.
struct VectorMessage {
    let topic: String?
    let type: String
    let header: JSONValue
    let body: JSONValue

    init?(_ frames: [[UInt8]], published: Bool) {
        let frames = published ? frames : [[]] + frames
        guard frames.count == 5, String(decoding: frames[1], as: UTF8.self).hasPrefix("FLOWBUS/") else { return nil }
        topic = published ? String(decoding: frames[0], as: UTF8.self) : nil
        type = String(decoding: frames[2], as: UTF8.self)
        guard let header = try? JSONValue(parsing: frames[3]), let body = try? JSONValue(parsing: frames[4]) else {
            return nil
        }
        self.header = header
        self.body = body
    }

    /// The four frames of a vector's `send`: `FLOWBUS/1`, its type, its header (with `sentAt` 0 unless given) and
    /// its body (`{}` unless given).
    static func frames(of message: JSONValue) -> [[UInt8]] {
        let members = message.objectValue ?? [:]
        var header = members["header"]?.objectValue ?? [:]
        if header["sentAt"] == nil {
            header["sentAt"] = .int(0)
        }
        return [
            Array("FLOWBUS/1".utf8), Array((members["type"]?.stringValue ?? "").utf8),
            JSONValue.object(header).jsonText(), (members["body"] ?? .object([:])).jsonText(),
        ]
    }
}
