/// Who waits for a step's fate.
struct PendingAcknowledgement: Sendable, Hashable, Codable {
    let peer: String
    let stepper: StepperKey
    let sequence: UInt64
    let correlation: UInt64
    /// When the sender sent it (its header's `sentAt`, ms since 1970): inspectors measure latency from it.
    let sentAt: Int64
}
