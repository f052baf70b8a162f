import FlowCore

// The bodies a peer sends the daemon besides steps and reports, read by hand so that a refusal names the field and
// what it must be in the protocol's words (`"role" must be one of stepper, presenter, inspector, guard, not "x"`).

extension Hello: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        var capabilities: [String] = []
        if fields.optional("capabilities") != nil {
            for (index, element) in try fields.array("capabilities").enumerated() {
                capabilities.append(try WireFields.string(element, "\(fields.name("capabilities"))[\(index)]"))
            }
        }
        self.init(
            role: try fields.oneOf("role", as: Role.self),
            id: try fields.string("id"),
            name: try fields.optionalString("name"),
            session: try fields.optionalString("session"),
            capabilities: capabilities,
            protocolVersion: try fields.integer("protocolVersion")
        )
    }

    public var wireValue: JSONValue {
        var object: JSONObject = [
            "role": .string(role.rawValue), "id": .string(id),
            "capabilities": .array(capabilities.map(JSONValue.string)),
            "protocolVersion": .int(protocolVersion),
        ]
        object["name"] = name.map(JSONValue.string)
        object["session"] = session.map(JSONValue.string)
        return .object(object)
    }
}

extension Bye: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        self.init(reason: try WireFields(value, at: path).optionalString("reason"))
    }

    public var wireValue: JSONValue {
        .object(reason.map { ["reason": .string($0)] } ?? [:])
    }
}

extension SnapshotRequest: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        self.init(presenter: try WireFields(value, at: path).optionalString("presenter"))
    }

    public var wireValue: JSONValue {
        .object(presenter.map { ["presenter": .string($0)] } ?? [:])
    }
}

extension Query: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        self.init(
            what: try fields.string("what"),
            arguments: fields.optional("arguments") == nil ? [:] : try fields.object("arguments")
        )
    }

    public var wireValue: JSONValue {
        ["what": .string(what), "arguments": .object(arguments)]
    }
}

extension SessionDataMessage: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        // `null` removes the key: it must be there, but may be null.
        guard let value = fields.members["value"] else {
            throw WireFieldError("missing \"\(fields.name("value"))\" (null removes the key)")
        }
        self.init(key: try fields.string("key"), value: value)
    }

    public var wireValue: JSONValue {
        ["key": .string(key), "value": value]
    }
}

extension GuardAnswer: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        self.init(question: try fields.unsigned("question"), allowed: try fields.bool("allowed"))
    }

    public var wireValue: JSONValue {
        ["question": .int(Int(clamping: question)), "allowed": .bool(allowed)]
    }
}
