/// A stepper's memory across reconnections: the sequences it sent and the fates they got.
struct StepperRecord: Sendable {
    var lastSequence: UInt64 = 0
    /// The outcomes of the last sequences decided.
    var acknowledgements = RecentOutcomes()
    /// Sequences taken in a turn that did not decide their fate: the fate is to come.
    var pending: Set<UInt64> = []

    /// A sequence is taken: the sender's next step must come after it. Its fate is decided in this turn, or the
    /// sequence is added to ``pending`` at its end.
    mutating func take(_ sequence: UInt64) {
        lastSequence = sequence
    }

    /// A sequence's outcome is decided: kept to answer the step if it is sent again, with the last `count` others.
    mutating func remember(_ outcome: StepOutcome, of sequence: UInt64, keeping count: Int) {
        if !pending.isEmpty {
            pending.remove(sequence)
        }
        acknowledgements.append(outcome, of: sequence, keeping: count)
    }
}
