import FlowSpec
import FlowWire
import Logging

/// What a coordinator is given: the flows, the configuration (both replaced by a reload), its epoch, the codec its
/// limits set, and where it logs.
struct CoordinatorSetup: Sendable {
    var specification: FlowSpecification
    var configuration: DaemonConfiguration
    /// The daemon's state: it stays across restarts that keep state and changes when state is lost.
    let epoch: String
    let codec: WireCodec
    let logger: Logger
}
