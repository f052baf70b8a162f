import FlowCore
import FlowDaemon
import FlowSpec
import FlowWire
import Foundation
import Logging

/// Where flowd's time goes, one layer at a time, in process: decoding and encoding a step (the codec), and the
/// coordinator handling a step's frames (decode, engine, encode the batch and the acknowledgement) — set against
/// the engine alone and the end-to-end figures, they show what the sockets and the processes cost.
enum ProfileBenchmarks {
    /// STEP messages decoded and encoded again per second.
    static func codec(messages: Int) -> Result {
        let step = StepMessage(step: BusRoles.step(1), sequence: 1, presentable: nil)
        return roundTrips(
            Envelope(header: Header(id: 1, session: "bench", sender: "bench/s1", sentAt: 0), message: .step(step)),
            name: "codec STEP decode+encode/s",
            messages: messages,
            what: "messages"
        )
    }

    /// EVENT messages (a `stepFate`, as flowd publishes one per step) decoded and encoded again per second: what
    /// each event costs flowd to write and an inspector to read.
    static func eventCodec(messages: Int) -> Result {
        let fields: JSONObject = [
            "token": 12, "step": ["name": "tick", "parameters": ["n": 7, "t": 22_625_454_649_207]],
            "source": ["stepper": "s1"], "sender": "bench/s1", "sentAt": 1_795_283_133_542, "accepted": true,
            "flows": [1],
        ]
        return roundTrips(
            Envelope(
                header: Header(id: 9, session: "bench", sentAt: 1_795_283_133_542),
                message: .event(InspectionEvent(kind: "stepFate", session: "bench", fields: fields))
            ),
            name: "codec EVENT decode+encode/s",
            messages: messages,
            what: "stepFate events"
        )
    }

    /// How many times per second the codec decodes an envelope's frames and encodes it again.
    private static func roundTrips(_ envelope: Envelope, name: String, messages: Int, what: String) -> Result {
        let codec = WireCodec()
        let frames = codec.encode(envelope)
        let clock = ContinuousClock()
        var bytes = 0
        let elapsed = clock.measure {
            for _ in 0..<messages {
                if let envelope = try? codec.decode(frames) {
                    bytes += codec.encode(envelope)[3].count
                }
            }
        }
        precondition(bytes == messages * frames[3].count, "every message should decode and encode again the same")
        return Result(
            name: name,
            value: Double(messages) / elapsed.seconds,
            unit: "msgs/s",
            detail: "\(messages) \(what) of \(frames.map(\.count).reduce(0, +)) bytes"
        )
    }

    /// Steps per second through the coordinator, frames in and frames out, no sockets; and the same with an
    /// inspector subscribed to the batched inspection stream (every event written into EVENTS, published at the
    /// end of each step's turn: the most a watcher can cost flowd's own work, measured without the noise of
    /// processes sharing cores). Unwatched and watched alternate, 3 rounds each; the median is kept.
    static func coordinator(steps: Int, flows: String) throws -> [Result] {
        var alone: [Double] = []
        var watched: [Double] = []
        for _ in 0..<3 {
            alone.append(try coordinatorRate(steps: steps, flows: flows, watched: false))
            watched.append(try coordinatorRate(steps: steps, flows: flows, watched: true))
        }
        let rate = (alone: alone.sorted()[1], watched: watched.sorted()[1])
        return [
            Result(
                name: "coordinator steps/s (frames, no sockets)",
                value: rate.alone,
                unit: "steps/s",
                detail: "\(steps) steps: decode, engine, batch and STEP_ACK encoded"
            ),
            Result(
                name: "coordinator steps/s watched",
                value: rate.watched,
                unit: "steps/s",
                detail: "the same, every inspection event written into EVENTS, one per step"
            ),
            Result(
                name: "watched/unwatched coordinator",
                value: rate.watched / rate.alone,
                unit: "×",
                detail:
                    "writing every event, worst case (an EVENTS per step); no goal: see watched/unwatched flowd work"
            ),
        ]
    }

    static func coordinatorRate(steps: Int, flows: String, watched: Bool) throws -> Double {
        var coordinator = try benchCoordinator(flows: flows, watched: watched)
        let codec = WireCodec()
        let clock = ContinuousClock()
        var outgoing = 0
        var published = 0
        let elapsed = clock.measure {
            for index in 1...steps {
                outgoing += coordinator.receive(stepFrames(index, codec), from: "bench/s1", now: 0).messages.count
                published += coordinator.publishDueInspection(now: 0).count
            }
        }
        precondition(outgoing >= steps * 2, "each step should publish a batch and be acknowledged")
        precondition(published == (watched ? steps : 0), "each watched step should publish one EVENTS")
        return Double(steps) / elapsed.seconds
    }

    /// A coordinator of the bench flows with stepper `bench/s1` registered in session `bench` (with `watched`, an
    /// inspector subscribed to the batched inspection stream, every event published at once; with `journal`, its
    /// journal kept, as a durable flowd keeps it).
    static func benchCoordinator(
        flows: String,
        watched: Bool,
        journal: Bool = false,
        configure: (inout DaemonConfiguration) -> Void = { _ in }
    ) throws -> Coordinator {
        let specification = try FlowSpecification.load(contentsOf: flows)
        var configuration = DaemonConfiguration(controlEndpoints: [], eventsEndpoints: [], flowsFile: flows)
        configure(&configuration)
        if journal {
            // Durable, as flowd runs by default: the coordinator keeps its journal (the server, which is not here,
            // would open this directory and write it).
            configuration.stateDirectory = NSTemporaryDirectory() + "flowbench-unopened-state"
        }
        // One peer sends everything here, far above a real peer's allowance (and the clock does not move): no
        // message or byte budget.
        configuration.peerMessageRate = 0
        configuration.peerByteRate = 0
        // The worst case for a watcher: an EVENTS message for every step, as at light load.
        configuration.inspectionBatchDelay = .zero
        var logger = Logger(label: "flowbench")
        logger.logLevel = .error
        // An epoch like flowd's (a UUID's text), written into every COMMANDS.
        var coordinator = Coordinator(
            specification: specification,
            configuration: configuration,
            epoch: "9F1C2D3E-4B5A-6978-8C9D-0E1F2A3B4C5D",
            now: 0,
            logger: logger
        )
        if watched {
            _ = coordinator.subscription(Array("inb/".utf8), subscribed: true, now: 0)
        }
        let hello = Hello(role: .stepper, id: "bench/s1", name: "s1", session: "bench")
        let frames = WireCodec().encode(
            Envelope(header: Header(id: 1, session: "bench", sender: "bench/s1", sentAt: 0), message: .hello(hello))
        )
        _ = coordinator.receive(frames, from: "bench/s1", now: 0)
        return coordinator
    }

    /// The frames of `bench/s1`'s step number `index` (1, 2...), as its client sends them.
    static func stepFrames(_ index: Int, _ codec: WireCodec) -> [[UInt8]] {
        let message = StepMessage(step: BusRoles.step(index), sequence: UInt64(index), presentable: nil)
        return codec.encode(
            Envelope(
                header: Header(id: UInt64(index + 1), session: "bench", sender: "bench/s1", sentAt: 0),
                message: .step(message)
            )
        )
    }
}

extension ProfileBenchmarks {
    /// `count` sessions created in a coordinator in process, as ``EndToEndBenchmarks/createSessions(_:_:)`` creates
    /// them in flowd (one peer's HELLO for each), its journal kept and its writes taken every 64 HELLOs (as flowd's
    /// server takes them): `flowbench coordinator-sessions FLOWS N`, for valgrind's dhat (which cannot run flowd
    /// itself).
    static func createCoordinatorSessions(_ count: Int, flows: String) throws {
        // flowd's capacity limits as the benchmarks set them (EndToEndBenchmarks.capacityLimits).
        var coordinator = try benchCoordinator(flows: flows, watched: false, journal: true) {
            $0.maxSessions = 2_000_000
            $0.sessionsPerPeerPerMinute = 10_000_000
        }
        let codec = WireCodec()
        var welcomed = 0
        for index in 1...count {
            let hello = Hello(role: .stepper, id: "creator", name: "creator", session: "session-\(index)")
            let header = Header(id: UInt64(index), sender: "creator", sentAt: 0)
            let replies = coordinator.receive(
                codec.encode(Envelope(header: header, message: .hello(hello))),
                from: "creator",
                now: 0
            ).messages
            welcomed +=
                replies.contains { reply in
                    guard case .toPeer(_, let frames) = reply, case .welcome = try? codec.decode(frames).message else {
                        return false
                    }
                    return true
                } ? 1 : 0
            if index % 64 == 0 {
                _ = coordinator.takeStoreGroup()
            }
        }
        _ = coordinator.takeStoreGroup()
        guard welcomed == count else { throw BenchFailure("\(count - welcomed) HELLOs were not answered") }
    }
}
