import FlowCore

extension WireCodec {
    /// A STEP read in one pass straight into its typed values (most of what flowd reads): `nil` when anything is not
    /// as a well-formed STEP has it — a field of another type, `null`, an escape in a key, a sequence of 0 — and the
    /// general reader then reads the frames again and says what is wrong. Both read the same messages the same way.
    func stepFastPath(header: [UInt8], body: [UInt8]) -> Envelope? {
        guard let header = fastHeader(header) else { return nil }
        var step: Step?
        var sequence: Int?
        var presentable: Int?
        let read = JSONObjectScanner.scan(body, maximumDepth: WireLimits.maxNesting) { key, value in
            if key.matches("step") {
                step = Self.fastStep(&value)
                return step != nil
            } else if key.matches("sequence") {
                sequence = value.integer()
                return sequence != nil
            } else if key.matches("presentable") {
                presentable = value.integer()
                return presentable != nil
            }
            return value.skip()
        }
        guard read, let step, let sequence, sequence >= 1 else { return nil }
        var presentableID: PresentableID?
        if let presentable {
            guard let raw = UInt32(exactly: presentable) else { return nil }
            presentableID = PresentableID(raw)
        }
        let message = StepMessage(step: step, sequence: UInt64(sequence), presentable: presentableID)
        return Envelope(header: header, message: .step(message))
    }

    /// A STEP_ACK read in one pass straight into its typed values (what a stepper reads for every step it emits):
    /// `nil` when anything is not as flowd writes it — `null`, a number that is not a whole one or out of range, an
    /// escape in a key — and the general reader then reads the frames again. Both read the same messages the same way.
    func stepAckFastPath(header: [UInt8], body: [UInt8]) -> Envelope? {
        guard let header = fastHeader(header) else { return nil }
        var sequence: Int?
        var fate: WireFate?
        let read = JSONObjectScanner.scan(body, maximumDepth: WireLimits.maxNesting) { key, value in
            if key.matches("sequence") {
                sequence = value.integer()
                return sequence != nil
            } else if key.matches("fate") {
                fate = Self.fastFate(&value)
                return fate != nil
            }
            return value.skip()
        }
        guard read, let sequence, sequence >= 0, let fate else { return nil }
        return Envelope(header: header, message: .stepAck(StepAck(sequence: UInt64(sequence), fate: fate)))
    }

    /// A fate (`accepted` and `flows` required; the reason, the ids and the sentences optional).
    private static func fastFate(_ scanner: inout JSONObjectScanner) -> WireFate? {
        var accepted: Bool?
        var flows: [FlowID]?
        var fate = WireFate(accepted: false, flows: [])
        let read = scanner.members { key, value in
            if key.matches("accepted") {
                accepted = value.boolean()
                return accepted != nil
            } else if key.matches("flows") {
                guard let numbers = value.integers() else { return false }
                let ids = numbers.compactMap { UInt32(exactly: $0).map(FlowID.init) }
                // An id out of range: the general reader says what is wrong with it.
                guard ids.count == numbers.count else { return false }
                flows = ids
                return true
            } else if key.matches("reason") {
                fate.reason = value.string()
                return fate.reason != nil
            } else if key.matches("explanation") {
                fate.explanation = value.string()
                return fate.explanation != nil
            } else if key.matches("remedy") {
                fate.remedy = value.string()
                return fate.remedy != nil
            } else if key.matches("parameter") {
                fate.parameter = value.string()
                return fate.parameter != nil
            } else if key.matches("presentable") {
                guard let raw = value.integer().flatMap(UInt32.init(exactly:)) else { return false }
                fate.presentable = PresentableID(raw)
                return true
            } else if key.matches("flow") {
                guard let raw = value.integer().flatMap(UInt32.init(exactly:)) else { return false }
                fate.flow = FlowID(raw)
                return true
            }
            return value.skip()
        }
        guard read, let accepted, let flows else { return nil }
        fate.accepted = accepted
        fate.flows = flows
        return fate
    }

    /// A step (`name` and `parameters`, both required) at the scanner's position.
    static func fastStep(_ scanner: inout JSONObjectScanner) -> Step? {
        var name: String?
        var parameters: JSONObject?
        let read = scanner.members { key, value in
            if key.matches("name") {
                name = value.string()
                return name != nil
            } else if key.matches("parameters") {
                parameters = value.object()
                return parameters != nil
            }
            return value.skip()
        }
        guard read, let name, let parameters else { return nil }
        return Step(name, parameters)
    }

    /// A header read in one pass (as ``Header/init(wire:at:)`` reads it, or `nil`).
    func fastHeader(_ bytes: [UInt8]) -> Header? {
        var id: Int?
        var sentAt: Int?
        var session: String?
        var sender: String?
        var correlation: Int?
        let read = JSONObjectScanner.scan(bytes, maximumDepth: WireLimits.maxNesting) { key, value in
            if key.matches("id") {
                id = value.integer()
                return id != nil
            } else if key.matches("sentAt") {
                sentAt = value.integer()
                return sentAt != nil
            } else if key.matches("session") {
                session = value.string()
                return session != nil
            } else if key.matches("sender") {
                sender = value.string()
                return sender != nil
            } else if key.matches("correlation") {
                correlation = value.integer()
                return correlation != nil
            }
            return value.skip()
        }
        guard read, let id, id >= 0, let sentAt else { return nil }
        if let correlation, correlation < 0 { return nil }
        return Header(
            id: UInt64(id),
            session: session,
            sender: sender,
            correlation: correlation.map(UInt64.init),
            sentAt: Int64(sentAt)
        )
    }
}
