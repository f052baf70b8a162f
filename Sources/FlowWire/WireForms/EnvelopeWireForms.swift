import FlowCore

extension Header: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        self.init(
            id: try fields.unsigned("id"),
            session: try fields.optionalString("session"),
            sender: try fields.optionalString("sender"),
            correlation: try fields.optionalUnsigned("correlation"),
            sentAt: try fields.integer("sentAt", as: Int64.self)
        )
    }

    public var wireValue: JSONValue {
        .object(JSONObjectBuilder.object(writeMembers))
    }

    /// The header's members given one by one (every message's header is written straight as text).
    @inlinable
    public func writeMembers<Members: JSONMembers>(to members: inout Members) {
        members.member("id", Int(clamping: id))
        members.member("sentAt", Int(sentAt))
        if let session { members.member("session", session) }
        if let sender { members.member("sender", sender) }
        if let correlation { members.member("correlation", Int(clamping: correlation)) }
    }
}

extension InspectionEvent: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        self.init(
            kind: try fields.string("kind"),
            session: try fields.optionalString("session"),
            fields: try fields.object("fields")
        )
    }

    public var wireValue: JSONValue {
        var object: JSONObject = ["kind": .string(kind), "fields": .object(fields)]
        object["session"] = session.map(JSONValue.string)
        return .object(object)
    }
}

extension Heartbeat: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        _ = try WireFields(value, at: path)
        self.init()
    }

    public var wireValue: JSONValue { .object([:]) }
}

extension InspectionBatch: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        self.init(
            session: try fields.optionalString("session"),
            events: try fields.values("events", as: Entry.self)
        )
    }

    public var wireValue: JSONValue {
        var object: JSONObject = ["events": .array(events.map(\.wireValue))]
        object["session"] = session.map(JSONValue.string)
        return .object(object)
    }
}

extension InspectionBatch.Entry: WireRepresentable {
    public init(wire value: JSONValue, at path: String) throws(WireFieldError) {
        let fields = try WireFields(value, at: path)
        self.init(
            kind: try fields.string("kind"),
            at: try fields.integer("at", as: Int64.self),
            fields: try fields.object("fields")
        )
    }

    public var wireValue: JSONValue {
        .object(["kind": .string(kind), "at": .int(Int(at)), "fields": .object(fields)])
    }
}
