import FlowCore
import Testing

@testable import FlowDaemonCore

/// The topic a presenter's COMMANDS go out on, `cmd/<session>/<presenter>`, made by copying their bytes once.
@Suite struct CommandsTopicTests {
    /// Names short enough to be a small string together and long ones, ASCII and not: each topic is the names joined.
    @Test func theTopicIsTheSessionAndThePresenterJoined() {
        let names = ["a", "kiosk", "bench", "séance-é", "キオスク", String(repeating: "long-session-", count: 20)]
        for session in names {
            for presenter in names {
                let topic = Coordinator.commandsTopic(session: SessionID(session), presenter: PresenterID(presenter))
                #expect(topic == "cmd/" + session + "/" + presenter)
                #expect(topic.utf8.count == 5 + session.utf8.count + presenter.utf8.count)
            }
        }
    }
}
