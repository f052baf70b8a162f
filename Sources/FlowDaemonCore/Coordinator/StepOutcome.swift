import FlowWire

/// Why a numbered step was refused: the ERROR its sender got, and gets again if it sends the step again.
struct StepRefusal: Sendable, Hashable, Codable {
    let code: ErrorCode
    let message: String
}

/// What became of a numbered step: its fate, or its refusal.
enum StepOutcome: Sendable, Hashable, Codable {
    case fate(WireFate)
    case refused(StepRefusal)
}
