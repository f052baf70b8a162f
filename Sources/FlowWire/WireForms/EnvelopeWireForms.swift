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
        var object: JSONObject = ["id": .int(Int(clamping: id)), "sentAt": .int(Int(sentAt))]
        object["session"] = session.map(JSONValue.string)
        object["sender"] = sender.map(JSONValue.string)
        object["correlation"] = correlation.map { .int(Int(clamping: $0)) }
        return .object(object)
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
