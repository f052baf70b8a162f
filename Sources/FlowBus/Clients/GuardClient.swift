import FlowCore
import FlowWire
import Foundation

extension GuardClient {
    /// A question flowd asks a guard: may this step pass the `adapt` rule that names the guard?
    public struct Question: Sendable, Hashable {
        /// The question's number, used in the answer.
        public var id: UInt64
        /// The guard asked.
        public var guardName: String
        /// What is asked about, as the rule says (`subject: about`).
        public var subject: String
        /// The step being adapted.
        public var step: Step
        /// The session of the step.
        public var session: String?
        /// When flowd stops waiting and counts the question as refused.
        public var deadline: Date

        init(_ message: GuardQuestionMessage, session: String?) {
            id = message.question
            guardName = message.guardName
            subject = message.subject
            step = message.step
            self.session = session
            deadline = Date(timeIntervalSince1970: Double(message.deadline) / 1000)
        }
    }
}

/// A guard process's connection: it answers flowd's questions for `adapt` rules with `guard: {name: ...}`.
///
/// ```swift
/// let guard = try await GuardClient.connect(name: "parental") { question in
///     await parentalControls.allows(question.subject)
/// }
/// ```
///
/// Questions are answered concurrently; an answer that comes after the question's deadline is ignored by flowd
/// (the step was already refused), and other sessions never wait for a guard.
public final class GuardClient: Sendable {
    let connection: BusConnection
    private let answering: Task<Void, Never>

    /// The guard's name, as rules name it.
    public var name: String { connection.setup.name }

    private init(_ connection: BusConnection, answering: Task<Void, Never>) {
        self.connection = connection
        self.answering = answering
    }

    deinit {
        answering.cancel()
        connection.enqueue(.close(done: nil))
    }

    /// Connects as the guard `name` (for one session, or for all when `session` is `nil`) and answers every
    /// question with `answer`.
    /// - Throws: ``FlowBusError`` `unreachable`, `refused`, `invalidOptions`.
    public static func connect(
        name: String,
        session: String? = nil,
        options: ClientOptions = ClientOptions(),
        answer: @escaping @Sendable (GuardClient.Question) async -> Bool
    ) async throws(FlowBusError) -> GuardClient {
        let setup = try ConnectionSetup(options: options, role: .guard, name: name, session: session)
        let (questions, continuation) = AsyncStream.makeStream(of: GuardClient.Question.self)
        let connection = try await BusConnection.open(setup, questions: continuation)
        let answering = Task {
            await withDiscardingTaskGroup { group in
                for await question in questions {
                    group.addTask {
                        let allowed = await answer(question)
                        try? connection.send(
                            .guardAnswer(GuardAnswer(question: question.id, allowed: allowed)),
                            session: question.session
                        )
                    }
                }
            }
        }
        return GuardClient(connection, answering: answering)
    }

    /// Says goodbye to flowd and stops answering.
    public func close() async {
        answering.cancel()
        await connection.close()
        await answering.value
    }
}
