import FlowCore
import FlowWire
import Foundation

/// Instructions per step in each in-process layer, counted by valgrind's callgrind: a figure that does not move
/// with the machine's noise, to judge a change by. `flowbench layer-steps LAYER N` prepares N steps' input, runs
/// ``warmUpSteps`` of them uncounted (the runtime's first look at a type — metadata, conformances — costs hundreds of
/// thousands of instructions once, and would be charged to the steps), then runs the N inside ``measuredSteps(_:)``,
/// the only function callgrind counts in (with what it calls).
enum InstructionBenchmarks {
    /// The layers, from the inside out.
    enum Layer: String, CaseIterable {
        /// The engine alone (``EngineBenchmarks/runSteps(_:)``'s session: a push, then a pop).
        case engine
        /// A STEP's frames decoded and its STEP_ACK encoded.
        case codec
        /// The coordinator given a STEP's frames: decoded, the engine, the batch and the STEP_ACK encoded (no
        /// sockets, no journal).
        case coordinator
        /// The coordinator as flowd runs it, with its journal: the same, and each step's journal entry written, the
        /// turn's group (entries, and snapshots when due) taken every 64 steps, as a loaded flowd's turns take them
        /// (no store: the groups are dropped).
        case journaled
        /// A stepper's side: a STEP's frames made (its body encoded once, as the client library keeps it) and its
        /// STEP_ACK decoded.
        case client

        var meaning: String {
            switch self {
            case .engine: "the engine alone"
            case .codec: "a STEP decoded, its STEP_ACK encoded"
            case .coordinator: "STEP frames in, COMMANDS and STEP_ACK frames out"
            case .journaled: "the same, with the journal's entries and snapshots written"
            case .client: "a stepper's STEP frames made, its STEP_ACK decoded"
            }
        }
    }

    /// Steps run before the counted ones, so that what the runtime does once per type is not counted per step.
    static let warmUpSteps = 64

    /// Instructions per step of each layer, or `nil` when valgrind is not installed.
    static func perStep(flows: String, quick: Bool) throws -> [Result]? {
        guard let valgrind = try Valgrind() else { return nil }
        defer { valgrind.cleanUp() }
        let steps = quick ? 1_000 : 5_000
        return try Layer.allCases.map { layer in
            let output = NSTemporaryDirectory() + "flowbench-callgrind-\(UUID().uuidString.prefix(8))"
            defer { try? FileManager.default.removeItem(atPath: output) }
            _ = try valgrind.run(
                [
                    "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=*flowbench_measured_steps*",
                    "--callgrind-out-file=\(output)",
                ],
                ["layer-steps", layer.rawValue, "\(steps)", flows]
            )
            let instructions = try totalInstructions(in: output)
            return Result(
                name: "\(layer.rawValue) instructions per step",
                value: Double(instructions) / Double(steps),
                unit: "instrs",
                detail: "callgrind, \(steps) steps: \(layer.meaning)"
            )
        }
    }

    /// The `totals:` (or `summary:`) line of a callgrind output file: the instructions it counted.
    private static func totalInstructions(in path: String) throws -> Int {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for line in text.split(separator: "\n").reversed() {
            for prefix in ["totals:", "summary:"] where line.hasPrefix(prefix) {
                if let value = Int(line.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)) {
                    return value
                }
            }
        }
        throw BenchFailure("callgrind wrote no totals in \(path)")
    }

    /// `flowbench layer-steps LAYER N FLOWS`: runs N steps through one layer, inside ``measuredSteps(_:)``.
    static func runLayer(_ arguments: [String]) throws {
        guard arguments.count >= 3, let layer = Layer(rawValue: arguments[0]), let count = Int(arguments[1]) else {
            throw BenchFailure("usage: flowbench layer-steps engine|codec|coordinator|journaled|client STEPS FLOWS")
        }
        let codec = WireCodec()
        var results = 0
        switch layer {
        case .engine:
            var engine = try EngineBenchmarks.benchEngine()
            let steps = [Step("picked", ["withId": 1]), Step("back")]
            for index in 0..<warmUpSteps {
                _ = EngineBenchmarks.step(&engine, steps[index % 2])
            }
            measuredSteps {
                for index in 0..<count {
                    results += EngineBenchmarks.step(&engine, steps[index % 2])
                }
            }
        case .codec:
            let frames = (1...count + warmUpSteps).map { ProfileBenchmarks.stepFrames($0, codec) }
            func decodeAndAcknowledge(_ input: [[UInt8]]) -> Int {
                guard let envelope = try? codec.decode(input), case .step(let step) = envelope.message else {
                    return 0
                }
                let fate = WireFate(accepted: true, flows: [FlowID(1)])
                let header = Header(id: envelope.header.id, session: envelope.header.session, sentAt: 0)
                return codec.encode(
                    Envelope(header: header, message: .stepAck(StepAck(sequence: step.sequence, fate: fate)))
                ).count
            }
            for input in frames.prefix(warmUpSteps) {
                _ = decodeAndAcknowledge(input)
            }
            measuredSteps {
                for input in frames.dropFirst(warmUpSteps) {
                    results += decodeAndAcknowledge(input)
                }
            }
        case .client:
            let bodies = (1...count + warmUpSteps).map { index in
                codec.body(
                    of: .step(StepMessage(step: Step("picked", ["withId": .int(index)]), sequence: UInt64(index)))
                )
            }
            let acknowledgements = (1...count + warmUpSteps).map { index in
                codec.encode(
                    Envelope(
                        header: Header(id: UInt64(index), session: "bench", correlation: UInt64(index), sentAt: 0),
                        message: .stepAck(
                            StepAck(sequence: UInt64(index), fate: WireFate(accepted: true, flows: [FlowID(1)]))
                        )
                    )
                )
            }
            func sendAndHear(_ index: Int) -> Int {
                let header = Header(id: UInt64(index + 1), session: "bench", sender: "bench/s1", sentAt: 0)
                var outputs = codec.encode(header: header, type: .step, body: bodies[index]).count > 0 ? 0 : 1
                if let envelope = try? codec.decode(acknowledgements[index]), case .stepAck = envelope.message {
                    outputs += 1
                }
                return outputs
            }
            for index in 0..<warmUpSteps {
                _ = sendAndHear(index)
            }
            measuredSteps {
                for index in warmUpSteps..<count + warmUpSteps {
                    results += sendAndHear(index)
                }
            }
        case .coordinator:
            var coordinator = try ProfileBenchmarks.benchCoordinator(flows: arguments[2], watched: false)
            let frames = (1...count + warmUpSteps).map { ProfileBenchmarks.stepFrames($0, codec) }
            for input in frames.prefix(warmUpSteps) {
                _ = coordinator.receive(input, from: "bench/s1", now: 0)
            }
            measuredSteps {
                for input in frames.dropFirst(warmUpSteps) {
                    results += coordinator.receive(input, from: "bench/s1", now: 0).messages.count
                }
            }
        case .journaled:
            var coordinator = try ProfileBenchmarks.benchCoordinator(flows: arguments[2], watched: false, journal: true)
            let frames = (1...count + warmUpSteps).map { ProfileBenchmarks.stepFrames($0, codec) }
            for input in frames.prefix(warmUpSteps) {
                _ = coordinator.receive(input, from: "bench/s1", now: 0)
            }
            // A snapshot too: the counted steps write theirs (one each `snapshotEvery` entries) at their steady cost.
            _ = coordinator.takeStoreGroup(everything: true)
            measuredSteps {
                for (index, input) in frames.dropFirst(warmUpSteps).enumerated() {
                    results += coordinator.receive(input, from: "bench/s1", now: 0).messages.count
                    if index % 64 == 63 {
                        results += coordinator.takeStoreGroup().entries.isEmpty ? 0 : 1
                    }
                }
            }
        }
        guard results >= count else { throw BenchFailure("\(layer) produced \(results) outputs for \(count) steps") }
    }
}

/// What callgrind counts (`--toggle-collect=*flowbench_measured_steps*`, which also matches the copies the optimizer
/// specializes): `body`, and everything it calls.
@_silgen_name("flowbench_measured_steps")
@inline(never)
func measuredSteps(_ body: () -> Void) {
    body()
}
