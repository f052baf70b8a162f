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
case "engine-steps": try EngineBenchmarks.runSteps(Int(arguments.dropFirst().first ?? "") ?? 1_000)
case "session-creator":
    // flowbench session-creator CONTROL N: N sessions created in a running flowd, one HELLO each.
    let rest = Array(arguments.dropFirst())
    guard rest.count == 2, let count = Int(rest[1]) else {
        throw BenchFailure("usage: flowbench session-creator CONTROL-ENDPOINT COUNT")
    }
    try EndToEndBenchmarks.createSessions(count, BenchEndpoints(control: rest[0], events: ""))
case "coordinator-sessions":
    // flowbench coordinator-sessions FLOWS N: N sessions in a coordinator in process (for valgrind's dhat).
    let rest = Array(arguments.dropFirst())
    guard rest.count == 2, let count = Int(rest[1]) else {
        throw BenchFailure("usage: flowbench coordinator-sessions FLOWS COUNT")
    }
    try ProfileBenchmarks.createCoordinatorSessions(count, flows: rest[0])
case "engine-sessions": try EngineBenchmarks.startIdleSessions(Int(arguments.dropFirst().first ?? "") ?? 1_000)
case "layer-steps": try InstructionBenchmarks.runLayer(Array(arguments.dropFirst()))
case "flows":
    // The benchmarks' flow file, written where asked (scripts/profile runs flowd on it): flowbench flows FILE.
    guard let path = arguments.dropFirst().first else { throw BenchFailure("usage: flowbench flows FILE") }
    try BenchFlows.yaml.write(toFile: path, atomically: true, encoding: .utf8)
case "instructions":
    // Only the instructions per step of the in-process layers (callgrind): flowbench instructions [--quick].
    let endToEnd = try EndToEndBenchmarks()
    defer { endToEnd.cleanUp() }
    guard let results = try InstructionBenchmarks.perStep(flows: endToEnd.flows, quick: arguments.contains("--quick"))
    else { throw BenchFailure("valgrind is not installed") }
    for result in results {
        print(result.line)
    }
case "watcher":
    // Only the inspector's cost (flowd alone, then with flowctl watch): needs flowd and flowctl built next to it.
    let endToEnd = try EndToEndBenchmarks()
    defer { endToEnd.cleanUp() }
    for result in try WatcherBenchmarks.cost(endToEnd, quick: arguments.contains("--quick")) {
        print(result.line)
    }
case "durability":
    // Only what keeping sessions costs, and the restore: flowbench durability [--quick] [SESSIONS].
    let endToEnd = try EndToEndBenchmarks()
    defer { endToEnd.cleanUp() }
    let quick = arguments.contains("--quick")
    let sessions = arguments.dropFirst().compactMap { Int($0) }.first ?? (quick ? 10_000 : 100_000)
    for result in try DurabilityBenchmarks.cost(endToEnd, quick: quick)
        + DurabilityBenchmarks.restore(endToEnd, sessions: sessions)
    {
        print(result.line)
    }
case "fleet":
    // Only a fleet's cost (PostgreSQL against SQLite) and its takeover: flowbench fleet [--quick] [SESSIONS].
    let endToEnd = try EndToEndBenchmarks()
    defer { endToEnd.cleanUp() }
    let sessions = arguments.dropFirst().compactMap { Int($0) }.first ?? 10_000
    for result in try FleetBenchmarks.run(endToEnd, quick: arguments.contains("--quick"), sessions: sessions) {
        print(result.line)
    }
case "profile":
    // Only the in-process layers (codec, coordinator, engine): quick to compare two builds.
    let endToEnd = try EndToEndBenchmarks()
    defer { endToEnd.cleanUp() }
    for result in [ProfileBenchmarks.codec(messages: 50_000), ProfileBenchmarks.eventCodec(messages: 50_000)]
        + (try ProfileBenchmarks.coordinator(steps: 20_000, flows: endToEnd.flows))
        + [try EngineBenchmarks.throughput(steps: 100_000)] + (try AllocationBenchmarks.perStep(quick: true) ?? [])
    {
        print(result.line)
    }
case "anchors":
    // Only flowd against the C relays and the Python coordinator, with the lean clients: flowbench anchors [--quick].
    let endToEnd = try EndToEndBenchmarks()
    defer { endToEnd.cleanUp() }
    for result in try AnchorBenchmarks(endToEnd: endToEnd, quick: arguments.contains("--quick")).results().rows {
        print(result.line)
    }
case "websocket":
    // Only flowd over WebSocket against flowd over ZeroMQ, with the lean C clients: flowbench websocket [--quick].
    let endToEnd = try EndToEndBenchmarks()
    defer { endToEnd.cleanUp() }
    for result in try WebSocketBenchmarks(endToEnd: endToEnd, quick: arguments.contains("--quick")).results() {
        print(result.line)
    }
case "flooder": try FloodRole.run(Array(arguments.dropFirst()))
case "subscription-flooder": try SubscriptionFloodRole.run(Array(arguments.dropFirst()))
case "flood":
    // Only what a flood costs the others: flowbench flood [--quick].
    let endToEnd = try EndToEndBenchmarks()
    defer { endToEnd.cleanUp() }
    for result in try FloodBenchmarks.cost(endToEnd, quick: arguments.contains("--quick"))
        + HostileBodyBenchmarks.cost()
    {
        print(result.line)
    }
case "sessions":
    // Only what idle sessions cost, in flowd and in the engine: flowbench sessions [--quick].
    let endToEnd = try EndToEndBenchmarks()
    defer { endToEnd.cleanUp() }
    let quick = arguments.contains("--quick")
    for result in try SessionBenchmarks.flowd(endToEnd, quick: quick) + SessionBenchmarks.engine(quick: quick) {
        print(result.line)
    }
case "hostile":
    // What reading the most expensive bodies of the largest size costs (sets peerByteRate's default).
    for result in HostileBodyBenchmarks.cost() {
        print(result.line)
    }
case "coordinator":
    // The coordinator alone, for a profiler: flowbench coordinator [watched] [STEPS].
    let endToEnd = try EndToEndBenchmarks()
    defer { endToEnd.cleanUp() }
    let steps = arguments.dropFirst().compactMap { Int($0) }.first ?? 100_000
    let rate = try ProfileBenchmarks.coordinatorRate(
        steps: steps,
        flows: endToEnd.flows,
        watched: arguments.contains("watched")
    )
    print("coordinator steps/s \(rate)")
case "--help", "-h", "help":
    print(
        """
        flowbench: FlowBus's benchmark harness (run it through scripts/bench, on a release build).
        Usage:
          flowbench [--quick] [--json FILE]      the whole suite, flowd and the clients as separate processes
          flowbench profile                      the in-process layers only (codec, coordinator, engine)
          flowbench coordinator [watched] [STEPS] the coordinator alone, for a profiler
          flowbench anchors [--quick]            flowd against the C relays and the Python coordinator (lean clients)
          flowbench durability [--quick] [SESSIONS], fleet [--quick] [SESSIONS], flood [--quick], websocket [--quick], hostile,
          watcher [--quick], sessions [--quick]
                                                 one part of the suite
          flowbench instructions [--quick]       instructions per step of the in-process layers (callgrind)
          flowbench engine-steps N               the engine alone
          flowbench engine-sessions N            N idle sessions in the engine alone (for valgrind's dhat or massif)
          flowbench coordinator-sessions FLOWS N N sessions in flowd's coordinator in process, its journal kept (dhat)
          flowbench layer-steps LAYER N FLOWS    N steps through one layer (engine, codec, coordinator, journaled, client), for callgrind
          flowbench flows FILE                   writes the benchmarks' flow file (scripts/profile runs flowd on it)
        Roles the harness starts (each a process): stepper, presenter, relay, relay-stepper, relay-presenter,
          flooder, subscription-flooder EVENTS [COUNT] [CONNECTIONS], session-creator CONTROL COUNT
        """
    )
default: try await Harness(arguments: arguments).run()
}
