import FlowCore
import FlowWire

/// A sender of steps in a session, by its role and the name it registered with (a stepper and a presenter may
/// share a name; their sequences are their own).
struct StepperKey: Sendable, Hashable, Codable {
    let session: SessionID
    let role: Role
    let name: String
}
