import FlowBus
import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing

/// The inspection stream of the client library against a real flowd: what an inspector receives, in which order,
/// with which time, for which session.
@Suite struct InspectionStreamTests {
    /// The events of a stream until one matches `last` (or 10 s pass: the stream is then closed, and the test
    /// sees what came).
    private func events(
        of stream: InspectionStream,
        until last: @escaping (InspectionEvent) -> Bool
    ) async -> [(event: InspectionEvent, header: Header)] {
        let timer = Task {
            try await Task.sleep(for: .seconds(10))
            stream.close()
        }
        defer { timer.cancel() }
        var events: [(event: InspectionEvent, header: Header)] = []
        for await item in stream.items {
            guard case .event(let event, let header) = item else { continue }
            events.append((event, header))
            if last(event) { break }
        }
        return events
    }

    @Test(arguments: Transport.allCases)
    func eachEventComesInOrderWithItsTimeAndCommandBatchesOnlyWhenAskedFor(transport: Transport) async throws {
        let daemon = try Daemon(transport)
        let withCommands = try await InspectionStream.open(session: "kiosk", commands: true, options: daemon.options())
        let eventsOnly = try await InspectionStream.open(session: "kiosk", options: daemon.options())
        let everySession = try await InspectionStream.open(options: daemon.options())
        #expect(withCommands.topics == ["inb/kiosk/"])
        #expect(everySession.topics == ["inb/"])
        let started = Int64(Date().timeIntervalSince1970 * 1000)

        // A session whose name starts with the watched one's: its events are not the watched session's.
        let neighbour = try await StepperClient.connect(session: "kiosk/7", name: "app", options: daemon.options())
        #expect(try await neighbour.emit("onboardingIsRequired").isAccepted)
        let presenter = UpdateRecorder(try await PresenterClient.connect(session: "kiosk", options: daemon.options()))
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: daemon.options())
        #expect(try await app.emit("onboardingIsRequired").isAccepted)
        let isTheAppsFate = { (event: InspectionEvent) in
            event.kind == "stepFate" && event.session == "kiosk" && event.fields["source"] == ["stepper": "app"]
                && event.fields["step"]?.objectValue?["name"] == "onboardingIsRequired"
        }

        let all = await events(of: withCommands, until: isTheAppsFate)
        #expect(all.last.map { isTheAppsFate($0.event) } == true)
        #expect(all.allSatisfy { $0.event.session == "kiosk" && $0.header.session == "kiosk" })
        // Each event carries the time flowd produced it, in order.
        let times = all.map(\.header.sentAt)
        #expect(times.first.map { $0 >= started - 1000 } == true)
        #expect(times == times.sorted())
        let batches = all.filter { $0.event.kind == "commands" }
        #expect(!batches.isEmpty)
        let firstBatch = try #require(batches.first?.event.fields)
        let typed = try CommandsMessage(wire: .object(firstBatch), at: "")
        #expect(typed.presenter == "main")

        let plain = await events(of: eventsOnly, until: isTheAppsFate)
        #expect(plain.map(\.event) == all.map(\.event).filter { $0.kind != "commands" })

        // Without a session, every session's events, and flowd's own.
        let every = await events(of: everySession, until: isTheAppsFate)
        #expect(Set(every.compactMap(\.event.session)) == ["kiosk", "kiosk/7"])

        for stream in [withCommands, eventsOnly, everySession] {
            stream.close()
        }
        await app.close()
        await neighbour.close()
        await presenter.presenter.close()
    }

    /// A reader that does not keep up is not followed without bound: the stream holds a bounded number of bursts and
    /// then says how many items it left out.
    @Test func aReaderThatFallsBehindIsToldWhatWasSkipped() async throws {
        let daemon = try Daemon(.ipc)
        let stream = try await InspectionStream.open(session: "kiosk", options: daemon.options())
        let app = try await StepperClient.connect(session: "kiosk", name: "app", options: daemon.options())
        // Many events while nobody reads: each step's received and fate events, each step its own burst.
        for _ in 0..<2000 {
            _ = try await app.emit("introIsRequired")
        }
        await app.close()
        var events = 0
        var skipped = 0
        let timer = Task {
            try await Task.sleep(for: .seconds(5))
            stream.close()
        }
        for await item in stream.items {
            switch item {
            case .event(let event, _):
                events += 1
                if event.kind == "unregistered" { stream.close() }
            case .skipped(let count): skipped += count
            default: break
            }
        }
        timer.cancel()
        #expect(skipped > 0, "read \(events) events, none skipped")
        // It held at most its limit of bursts, each of at most 256 items.
        #expect(events <= InspectionStream.bufferLimit * 256 + 256)
        #expect(events + skipped >= 4000)
    }
}
