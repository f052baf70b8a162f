import Foundation

// flowbench: FlowBus's benchmark harness. Run it through scripts/bench (release build).
// Usage: flowbench [--quick] [--json FILE]; the harness starts flowd, flowctl and flowbench itself in the roles
// below as separate processes.

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "stepper": try await BusRoles.stepper(Array(arguments.dropFirst()))
case "presenter": try await BusRoles.presenter(Array(arguments.dropFirst()))
case "relay": try RelayRoles.relay(Array(arguments.dropFirst()))
case "relay-stepper": try RelayRoles.stepper(Array(arguments.dropFirst()))
case "relay-presenter": try RelayRoles.presenter(Array(arguments.dropFirst()))
default: try await Harness(arguments: arguments).run()
}
