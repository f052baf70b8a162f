import FlowCore

/// Turns envelopes into ZeroMQ frames and back: pure, no I/O.
///
/// A message is four frames — `FLOWBUS/1`, the type, the header (JSON), the body (JSON) — after the routing
/// id a ROUTER adds, and after the topic on the events socket. See the FlowWire specification.
public struct WireCodec: Sendable {
    /// The protocol version this codec speaks.
    public static let version = 1
    /// The protocol frame of this version.
    public static let protocolFrame = Array("FLOWBUS/\(version)".utf8)
    /// The prefix every FlowBus protocol frame starts with.
    static let protocolPrefix = Array("FLOWBUS/".utf8)

    /// The largest header frame accepted, in bytes.
    public var maxHeaderSize: Int
    /// The largest body frame accepted, in bytes.
    public var maxBodySize: Int

    /// Creates a codec with limits.
    public init(maxHeaderSize: Int = 4096, maxBodySize: Int = 1 << 20) {
        self.maxHeaderSize = maxHeaderSize
        self.maxBodySize = maxBodySize
    }

    /// The four frames of an envelope.
    public func encode(_ envelope: Envelope) -> [[UInt8]] {
        encode(header: envelope.header, type: envelope.message.type, body: body(of: envelope.message))
    }

    /// The four frames of a message whose body frame is encoded already (a step resent keeps its body).
    public func encode(header: Header, type: MessageType, body: [UInt8]) -> [[UInt8]] {
        var headerText = JSONObjectWriter(capacity: 96)
        header.writeMembers(to: &headerText)
        return [Self.protocolFrame, type.frame, headerText.finished(), body]
    }

    /// Reads an envelope from its four frames.
    /// - Throws: ``WireError`` saying what is wrong, with the message's `id` as its correlation whenever the header
    ///   frame could be read; the frames change nothing.
    public func decode(_ frames: [[UInt8]]) throws(WireError) -> Envelope {
        guard let first = frames.first, first.starts(with: Self.protocolPrefix) else {
            throw WireError(.notFlowBus, "the first frame must be \"FLOWBUS/\(Self.version)\"")
        }
        do {
            return try decodeFlowBus(frames)
        } catch {
            guard error.correlation == nil, error.code != .malformedHeader else { throw error }
            throw WireError(error.code, error.message, correlation: headerID(frames))
        }
    }

    /// The `id` of a message's header frame (the third), if it can be read.
    private func headerID(_ frames: [[UInt8]]) -> UInt64? {
        guard frames.count >= 3, frames[2].count <= maxHeaderSize,
            let header = try? JSONValue(parsing: frames[2], maximumDepth: WireLimits.maxNesting),
            case .int(let id)? = header.objectValue?["id"], id >= 0
        else { return nil }
        return UInt64(id)
    }

    private func decodeFlowBus(_ frames: [[UInt8]]) throws(WireError) -> Envelope {
        let first = frames[0]
        guard first == Self.protocolFrame else {
            let spoken = String(decoding: first.prefix(32), as: UTF8.self)
            throw WireError(.unsupportedVersion, "\(spoken) is not supported; this peer speaks FLOWBUS/\(Self.version)")
        }
        guard frames.count == 4 else {
            throw WireError(
                .wrongFrameCount,
                "a message has 4 frames (protocol, type, header, body), not \(frames.count)"
            )
        }
        guard let type = MessageType(frame: frames[1]) else {
            let name = String(decoding: frames[1].prefix(32), as: UTF8.self)
            throw WireError(.unknownType, "unknown message type \"\(name)\"")
        }
        guard frames[2].count <= maxHeaderSize else {
            throw WireError(.tooLarge, "the header is \(frames[2].count) bytes; the limit is \(maxHeaderSize)")
        }
        guard frames[3].count <= maxBodySize else {
            throw WireError(.tooLarge, "the body is \(frames[3].count) bytes; the limit is \(maxBodySize)")
        }
        if type == .step, let envelope = stepFastPath(header: frames[2], body: frames[3]) {
            return envelope
        }
        if type == .stepAck, let envelope = stepAckFastPath(header: frames[2], body: frames[3]) {
            return envelope
        }
        if type == .commands, let envelope = commandsFastPath(header: frames[2], body: frames[3]) {
            return envelope
        }
        let header: Header
        do {
            header = try Header(wire: try JSONValue(parsing: frames[2], maximumDepth: WireLimits.maxNesting), at: "")
        } catch {
            throw WireError(.malformedHeader, "the header is not valid: \(describe(error))")
        }
        do {
            return Envelope(header: header, message: try message(type, frames[3]))
        } catch {
            throw WireError(
                .malformedBody,
                "the body of \(type.rawValue) is not valid: \(describe(error))",
                correlation: header.id
            )
        }
    }

    private func message(_ type: MessageType, _ bytes: [UInt8]) throws -> Message {
        let body = try JSONValue(parsing: bytes, maximumDepth: WireLimits.maxNesting)
        func decode<Body: Decodable>(_ type: Body.Type) throws -> Body {
            try FlowJSON.decode(type, from: body)
        }
        func read<Body: WireRepresentable>(_ type: Body.Type) throws(WireFieldError) -> Body {
            try Body(wire: body, at: "")
        }
        switch type {
        case .hello: return .hello(try read(Hello.self))
        case .welcome: return .welcome(try decode(Welcome.self))
        case .redirect: return .redirect(try decode(Redirect.self))
        case .bye: return .bye(try read(Bye.self))
        case .heartbeat: return .heartbeat(try read(Heartbeat.self))
        case .error: return .error(try decode(ErrorReply.self))
        case .step: return .step(try read(StepMessage.self))
        case .deepLink: return .deepLink(try read(DeepLinkMessage.self))
        case .stepAck: return .stepAck(try read(StepAck.self))
        case .visibility: return .visibility(try read(VisibilityReport.self))
        case .commands: return .commands(try read(CommandsMessage.self))
        case .snapshotRequest: return .snapshotRequest(try read(SnapshotRequest.self))
        case .snapshot: return .snapshot(try decode(SnapshotMessage.self))
        case .query: return .query(try read(Query.self))
        case .reply: return .reply(try decode(Reply.self))
        case .sessionData: return .sessionData(try read(SessionDataMessage.self))
        case .guardQuestion: return .guardQuestion(try decode(GuardQuestionMessage.self))
        case .guardAnswer: return .guardAnswer(try read(GuardAnswer.self))
        case .event: return .event(try read(InspectionEvent.self))
        case .events: return .events(try read(InspectionBatch.self))
        }
    }

    /// The body frame of a message.
    public func body(of message: Message) -> [UInt8] {
        switch message {
        case .hello(let body): text(body.wireValue)
        case .welcome(let body): json(body)
        case .redirect(let body): json(body)
        case .bye(let body): text(body.wireValue)
        case .heartbeat(let body): text(body.wireValue)
        case .error(let body): json(body)
        case .step(let body): text(body.writeMembers)
        case .deepLink(let body): text(body.wireValue)
        case .stepAck(let body): text(body.writeMembers)
        case .visibility(let body): text(body.wireValue)
        case .commands(let body): text(body.writeMembers)
        case .snapshotRequest(let body): text(body.wireValue)
        case .snapshot(let body): json(body)
        case .query(let body): text(body.wireValue)
        case .reply(let body): json(body)
        case .sessionData(let body): text(body.wireValue)
        case .guardQuestion(let body): json(body)
        case .guardAnswer(let body): text(body.wireValue)
        case .event(let body): text(body.wireValue)
        case .events(let body): text(body.wireValue)
        }
    }

    /// The body of a STEP_ACK, written without wrapping it in a ``Message`` first (flowd writes one for every step:
    /// taking the message apart again cost its copies).
    public func body(of acknowledgement: borrowing StepAck) -> [UInt8] {
        text { acknowledgement.writeMembers(to: &$0) }
    }

    /// The body of a COMMANDS batch, written without wrapping it in a ``Message`` first (one for every navigation).
    public func body(of batch: borrowing CommandsMessage) -> [UInt8] {
        text { batch.writeMembers(to: &$0) }
    }

    private func json(_ value: some Encodable) -> [UInt8] {
        // The message types hold only strings, numbers, booleans, arrays and objects: encoding cannot fail.
        (try? FlowJSON.encode(value)) ?? Array("{}".utf8)
    }

    /// The compact JSON text of a hand-written wire form.
    private func text(_ value: JSONValue) -> [UInt8] {
        value.jsonText()
    }

    /// The JSON text of a wire form that writes its members one by one: straight into the text, no value built.
    private func text(_ members: (inout JSONObjectWriter) -> Void) -> [UInt8] {
        var writer = JSONObjectWriter(capacity: 256)
        members(&writer)
        return writer.finished()
    }

    private func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else {
            return "\(error)"
        }
        switch decoding {
        case .dataCorrupted(let context):
            return context.debugDescription
        case .keyNotFound(let key, let context):
            return "missing \"\(path(context.codingPath + [key]))\""
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return "\"\(path(context.codingPath))\" must be \(type)"
        @unknown default:
            return "\(decoding)"
        }
    }

    private func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
