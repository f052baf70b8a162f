import FlowWire

/// The outcomes of a sender's last numbered steps, at most as many as are remembered
/// (``DaemonConfiguration/rememberedAcknowledgements``): a ring, so that remembering one more lets the oldest go
/// in place, with nothing shifted and no more room taken than the outcomes kept.
struct RecentOutcomes: Sendable {
    private var slots: [(sequence: UInt64, outcome: StepOutcome)] = []
    /// Where the oldest is, once the ring is full (the next to be replaced).
    private var oldest = 0

    /// The outcomes given, oldest first.
    init(_ outcomes: [(sequence: UInt64, outcome: StepOutcome)] = []) {
        slots = outcomes
    }

    /// How many are remembered.
    var count: Int { slots.count }

    /// Remembers an outcome, letting the oldest go once `capacity` are remembered.
    mutating func append(_ outcome: StepOutcome, of sequence: UInt64, keeping capacity: Int) {
        let capacity = max(capacity, 1)
        if slots.count < capacity && oldest == 0 {
            slots.append((sequence, outcome))
            return
        }
        if slots.count != capacity {
            // The number to remember changed (a reload): in order again, the oldest beyond it let go.
            slots = Array(inOrder.suffix(capacity - 1))
            oldest = 0
            slots.append((sequence, outcome))
            return
        }
        slots[oldest] = (sequence, outcome)
        oldest = (oldest + 1) % capacity
    }

    /// The outcome remembered for a sequence (the latest, if it was remembered twice).
    func outcome(of sequence: UInt64) -> StepOutcome? {
        for offset in 0..<slots.count {
            let index = (oldest + slots.count - 1 - offset) % slots.count
            if slots[index].sequence == sequence {
                return slots[index].outcome
            }
        }
        return nil
    }

    /// Every outcome remembered, oldest first.
    var inOrder: [(sequence: UInt64, outcome: StepOutcome)] {
        Array(slots[oldest...] + slots[..<oldest])
    }
}
