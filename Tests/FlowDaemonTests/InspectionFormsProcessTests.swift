import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// The two forms of the inspection stream from the real flowd binary: one EVENT per event (`ins/`) and EVENTS
/// per session and turn (`inb/`), over real sockets.
@Suite struct InspectionFormsProcessTests {
    @Test(arguments: ["ipc", "tcp"])
    func bothFormsCarryTheSameEventsInTheSameOrder(transport: String) throws {
        let daemon = try DaemonProcess(["--flows", demoFlows] + endpoints(transport))
        let (control, events) = try daemon.readyEndpoints()
        let context = try Context()
        let single = try TestPeer("one", session: "kiosk", context: context, control: control[0], events: events[0])
        let batched = try TestPeer("all", session: "kiosk", context: context, control: control[0], events: events[0])
        // Each subscription is confirmed on its topic: from then on nothing published there is missed.
        try single.subscribe("ins/kiosk/")
        try batched.subscribe("inb/kiosk/")

        let stepper = try TestPeer.registered(
            .stepper,
            name: "app",
            context: context,
            control: control[0],
            events: events[0]
        )
        #expect(try stepper.emit(Step("onboardingIsRequired"), sequence: 1).accepted)

        var entries: [InspectionBatch.Entry] = []
        while !entries.contains(where: { $0.kind == "stepFate" }) {
            let batch = try batched.expectPublished { if case .events(let batch) = $0 { batch } else { nil } }
            #expect(batch.session == "kiosk")
            entries += batch.events
        }
        let batchedEvents = entries.filter { $0.kind != "commands" }
        var one: [InspectionEvent] = []
        while one.count < batchedEvents.count {
            one.append(try single.expectPublished { if case .event(let event) = $0 { event } else { nil } })
        }
        #expect(batchedEvents.map(\.kind) == one.map(\.kind))
        #expect(batchedEvents.map(\.fields) == one.map(\.fields))
        #expect(one.map(\.kind).starts(with: ["sessionStarted", "flowStarted"]))
        // The command batches for the presenters are in the batched form, and only there.
        #expect(entries.contains { $0.kind == "commands" && $0.fields["presenter"] == "main" })
        #expect(daemon.signal(SIGTERM) == 0)
    }
}
