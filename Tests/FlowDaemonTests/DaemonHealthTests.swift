import FlowBusTesting
import FlowDaemon
import Testing

/// What `/livez` and `/readyz` say, from the loop's marks: starting, ready, stuck, stopping.
@Suite struct DaemonHealthTests {
    @Test func startingIsAliveButNotReady() {
        let health = DaemonHealth(tickPeriod: .milliseconds(5), minimumStall: .milliseconds(50))
        #expect(health.liveness == .healthy)
        #expect(health.readiness == .unhealthy("flowd is starting: binding its endpoints and restoring its sessions"))
        health.becameReady()
        #expect(health.readiness == .healthy)
    }

    @Test func aLoopThatStopsTickingIsNeitherAliveNorReady() {
        let health = DaemonHealth(tickPeriod: .milliseconds(5), minimumStall: .milliseconds(50))
        health.becameReady()
        health.ticked()
        #expect(health.liveness == .healthy)
        #expect(waitUntil(within: .seconds(5)) { health.liveness != .healthy })
        guard case .unhealthy(let reason) = health.liveness else { return }
        #expect(reason.hasPrefix("the event loop has not turned for 0."), "\(reason)")
        #expect(health.readiness == health.liveness)
        health.ticked()
        #expect(health.liveness == .healthy && health.readiness == .healthy)
    }

    @Test func stoppingIsNotReady() {
        let health = DaemonHealth(tickPeriod: .seconds(1))
        #expect(health.stallLimit == .seconds(10))
        health.becameReady()
        health.stopping()
        #expect(health.readiness == .unhealthy("flowd is stopping"))
        #expect(health.liveness == .healthy)
    }
}
