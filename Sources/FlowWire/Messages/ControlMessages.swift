import FlowCore

/// QUERY: an inspector asks the daemon something.
public struct Query: Sendable, Hashable, Codable {
    /// What is asked: `tree`, `sessions`, `registrations`, `stats`, `explain`, `endSession`.
    public var what: String
    /// Arguments, such as the session.
    public var arguments: JSONObject

    public init(what: String, arguments: JSONObject = [:]) {
        self.what = what
        self.arguments = arguments
    }
}

/// REPLY: the answer to a QUERY.
public struct Reply: Sendable, Hashable, Codable {
    /// The answer, shaped by the query.
    public var result: JSONValue

    public init(result: JSONValue) {
        self.result = result
    }
}

/// SESSION_DATA: sets (or with `null` removes) a value of the session's data, read by `adapt` rules; answered
/// with a REPLY once set.
public struct SessionDataMessage: Sendable, Hashable, Codable {
    public var key: String
    public var value: JSONValue

    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// GUARD_QUESTION: the daemon asks a guard whether a step may pass.
public struct GuardQuestionMessage: Sendable, Hashable, Codable {
    /// The question's id, to answer with.
    public var question: UInt64
    /// The guard asked.
    public var guardName: String
    /// What is asked, such as `about`.
    public var subject: String
    /// The step being adapted.
    public var step: Step
    /// When the question counts as refused: milliseconds since 1970.
    public var deadline: Int64

    public init(question: UInt64, guardName: String, subject: String, step: Step, deadline: Int64) {
        self.question = question
        self.guardName = guardName
        self.subject = subject
        self.step = step
        self.deadline = deadline
    }
}

/// GUARD_ANSWER: a guard's answer.
public struct GuardAnswer: Sendable, Hashable, Codable {
    public var question: UInt64
    public var allowed: Bool

    public init(question: UInt64, allowed: Bool) {
        self.question = question
        self.allowed = allowed
    }
}
