import FlowBusTesting
import FlowCore
import Foundation
import ZeroMQ

/// Replays the protocol's conformance vectors (`Tests/Conformance/*.json`) against a real flowd, over real sockets:
/// the format is described in `Tests/Conformance/README.md`, so that a client author in another language can
/// replay the same files.
struct ConformanceRunner {
    /// A vector file: a flowd started for it, and its vectors run in order.
    struct File {
        let name: String
        let flows: String
        let arguments: [String]
        let vectors: [JSONObject]
    }

    /// Why a vector failed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let folder = repositoryRoot.appendingPathComponent("Tests/Conformance")

    /// Every vector file, by name.
    static func files() throws -> [File] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        return try names.sorted().map { name in
            let text = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
            guard let object = try JSONValue(parsing: text).objectValue else {
                throw Failure(description: "\(name) is not a JSON object")
            }
            let flows = object["flows"]?.stringValue.map { repositoryRoot.appendingPathComponent($0).path } ?? demoFlows
            return File(
                name: name,
                flows: flows,
                arguments: object["daemon"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                vectors: object["vectors"]?.arrayValue?.compactMap(\.objectValue) ?? []
            )
        }
    }

    let control: String
    let events: String
    let context: Context

    /// Runs one vector; throws a ``Failure`` naming the exchange that went wrong.
    func run(_ vector: JSONObject, number: Int) throws {
        var peers: [String: VectorPeer] = [:]
        var captured: [String: JSONValue] = ["session": .string("v\(number)-\(UUID().uuidString.prefix(6))")]
        defer {
            for peer in peers.values {
                peer.close()
            }
        }
        for (index, exchange) in (vector["exchanges"]?.arrayValue ?? []).enumerated() {
            guard let exchange = exchange.objectValue, let name = exchange["peer"]?.stringValue else {
                throw Failure(description: "exchange \(index + 1) names no peer")
            }
            func fail(_ what: String) -> Failure {
                Failure(description: "exchange \(index + 1) (\(name)): \(what)")
            }
            if let id = exchange["connect"] {
                guard case .string(let id) = substitute(id, captured) else { throw fail("connect needs an id") }
                peers[name] = try VectorPeer(id: id, context: context, control: control, events: events)
                continue
            }
            guard let peer = peers[name] else { throw fail("the peer is not connected") }
            let within = Duration.milliseconds(exchange["within"]?.intValue ?? 5000)
            if let topic = exchange["subscribe"] {
                guard case .string(let topic) = substitute(topic, captured) else { throw fail("subscribe a string") }
                try peer.subscribe(topic, within: within)
            } else if let frames = exchange["frames"]?.arrayValue {
                try peer.send(frames.map { Array((substitute($0, captured).stringValue ?? "").utf8) })
            } else if let message = exchange["send"]?.objectValue {
                try peer.send(VectorMessage.frames(of: substitute(.object(message), captured)))
            } else if let expected = exchange["expect"]?.objectValue {
                let wanted = substitute(.object(expected), captured)
                try peer.expect(wanted, published: false, within: within, captured: &captured).map { throw fail($0) }
            } else if let expected = exchange["expectPublished"]?.objectValue {
                let wanted = substitute(.object(expected), captured)
                try peer.expect(wanted, published: true, within: within, captured: &captured).map { throw fail($0) }
            } else if let type = exchange["expectNone"]?.stringValue {
                if let seen = try peer.noMessage(of: type, within: within) {
                    throw fail("expected no \(type), got \(seen)")
                }
            } else if exchange["close"] != nil {
                peer.close()
                peers[name] = nil
            } else {
                throw fail("no action (connect, subscribe, send, frames, expect, expectPublished, expectNone, close)")
            }
        }
    }

    /// Replaces `${name}` inside strings, and a whole string `$name`, by what was captured.
    func substitute(_ value: JSONValue, _ captured: [String: JSONValue]) -> JSONValue {
        switch value {
        case .string(let text):
            if text.hasPrefix("$"), !text.hasPrefix("${"), let whole = captured[String(text.dropFirst())] {
                return whole
            }
            var result = text
            for (name, capturedValue) in captured {
                if case .string(let string) = capturedValue {
                    result = result.replacingOccurrences(of: "${\(name)}", with: string)
                } else if case .int(let number) = capturedValue {
                    result = result.replacingOccurrences(of: "${\(name)}", with: "\(number)")
                }
            }
            return .string(result)
        case .array(let items): return .array(items.map { substitute($0, captured) })
        case .object(let members): return .object(members.mapValues { substitute($0, captured) })
        default: return value
        }
    }
}
