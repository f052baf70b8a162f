import FlowCore

extension Step: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        self.init(try fields.string("name"), try fields.object("parameters"))
    }

    public var wireValue: JSONValue {
        .object(JSONObjectBuilder.object(writeMembers))
    }

    /// The step's members, `name` and `parameters`, given one by one (written straight as text on the hot path).
    @inlinable
    public func writeMembers<Members: JSONMembers>(to members: inout Members) {
        members.member("name", name)
        members.member("parameters", .object(parameters))
    }
}

extension StepMessage: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        self.init(
            step: try fields.value("step", as: Step.self),
            sequence: try fields.sequence("sequence"),
            presentable: try fields.optionalID("presentable")
        )
    }

    public var wireValue: JSONValue {
        .object(JSONObjectBuilder.object(writeMembers))
    }

    /// The message's members given one by one (a client writes each STEP straight as text).
    @inlinable
    public func writeMembers<Members: JSONMembers>(to members: inout Members) {
        members.member("step", object: step.writeMembers)
        members.member("sequence", Int(clamping: sequence))
        if let presentable { members.member("presentable", Int(presentable.rawValue)) }
    }
}

extension DeepLinkMessage: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        let path = try fields.values("path", as: Step.self)
        guard !path.isEmpty else {
            throw WireFieldError("\"\(fields.name("path"))\" must hold at least one step")
        }
        self.init(path: path, sequence: try fields.sequence("sequence"))
    }

    public var wireValue: JSONValue {
        ["path": .array(path.map(\.wireValue)), "sequence": .int(Int(clamping: sequence))]
    }
}

extension StepAck: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        self.init(sequence: try fields.unsigned("sequence"), fate: try fields.value("fate", as: WireFate.self))
    }

    public var wireValue: JSONValue {
        .object(JSONObjectBuilder.object(writeMembers))
    }

    /// The acknowledgement's members given one by one (written straight as text on the hot path).
    @inlinable
    public func writeMembers<Members: JSONMembers>(to members: inout Members) {
        members.member("sequence", Int(clamping: sequence))
        members.member("fate", object: fate.writeMembers)
    }
}

extension WireFate: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        self.init(
            accepted: try fields.bool("accepted"),
            flows: try fields.ids("flows"),
            reason: try fields.optionalString("reason"),
            presentable: try fields.optionalID("presentable"),
            flow: try fields.optionalID("flow"),
            parameter: try fields.optionalString("parameter"),
            explanation: try fields.optionalString("explanation"),
            remedy: try fields.optionalString("remedy")
        )
    }

    public var wireValue: JSONValue {
        .object(wireFields)
    }

    /// The fate's members, as STEP_ACK carries them and as `stepFate` events merge them into theirs.
    public var wireFields: JSONObject {
        JSONObjectBuilder.object(writeMembers)
    }

    /// The fate's members given one by one (written straight as text on the hot path): those of ``wireFields``.
    @inlinable
    public func writeMembers<Members: JSONMembers>(to members: inout Members) {
        members.member("accepted", accepted)
        members.member("flows", integers: flows.lazy.map { Int($0.rawValue) })
        if let reason { members.member("reason", reason) }
        if let presentable { members.member("presentable", Int(presentable.rawValue)) }
        if let flow { members.member("flow", Int(flow.rawValue)) }
        if let parameter { members.member("parameter", parameter) }
        if let explanation { members.member("explanation", explanation) }
        if let remedy { members.member("remedy", remedy) }
    }
}
