import FlowBusTesting
import Foundation
import Testing

@testable import FlowStore

/// The fleet's store over a real PostgreSQL server (started by the test as an unprivileged user, in a temporary
/// directory): what is committed comes back in order; one owner per session, with fencing; takeovers of expired
/// instances; a newer or damaged schema refused; a restarted server waited for.
@Suite(.enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.unavailableReason ?? "")))
struct PostgresStoreTests {
    private let server: PostgresServer

    init() throws {
        server = try PostgresServer()
    }

    private func store(
        _ url: String,
        _ name: String,
        lease: Int64 = 60_000,
        retry: Duration = .seconds(20),
        flows: String = "flows v1"
    ) throws(StoreError) -> PostgresStore {
        try PostgresStore(
            url: url,
            instance: FleetInstance(
                name: name,
                control: ["tcp://\(name):5860"],
                events: ["tcp://\(name):5861"],
                leaseMilliseconds: lease,
                flows: flows,
                flowsFile: "/etc/\(name).yaml"
            ),
            durability: .os,
            availability: StoreAvailability(retryWindow: retry)
        )
    }

    /// Claims `sessions` for `store` (as flowd does before it creates them).
    private func claim(_ sessions: [String], by store: PostgresStore) throws {
        for session in sessions {
            guard case .here(let state) = try store.locate(session) else {
                throw TestFailure("\(session) was not free")
            }
            #expect(state.entries.isEmpty && state.snapshots.isEmpty)
        }
    }

    @Test func committedGroupsComeBackInOrderToTheSameName() throws {
        let url = try server.createDatabase()
        let first = try store(url, "a")
        _ = try first.load()
        try claim(["s1", "s2"], by: first)
        try first.commit([
            group(entries: [entry("s1", "1"), entry("s2", "2")], metadata: ["clock": "20", "epoch": "e"]),
            group(entries: [entry("s1", "3")], metadata: ["clock": "10"]),
        ])
        try first.commit(group(snapshots: [SnapshotRecord(session: "s2", bytes: [9, 0, 255])]))
        #expect(first.statistics.journalEntries == 2)
        #expect(first.statistics.snapshots == 1)

        let again = try store(url, "a")
        let state = try again.load()
        #expect(state.entries.map(\.bytes) == [Array("1".utf8), Array("3".utf8)])
        #expect(state.snapshots == [SnapshotRecord(session: "s2", bytes: [9, 0, 255])])
        // The clock only goes forward; the rest is the last value written.
        #expect(state.metadata == ["clock": "20", "epoch": "e", "flows": "flows v1", "flowsFile": "/etc/a.yaml"])
        // Another name owns none of it.
        let other = try store(url, "b")
        #expect(try other.load().entries.isEmpty)
    }

    @Test func anEndedSessionIsGoneAndFreeForAnyInstance() throws {
        let url = try server.createDatabase()
        let a = try store(url, "a")
        _ = try a.load()
        try claim(["s"], by: a)
        try a.commit(group(entries: [entry("s", "1")], snapshots: [SnapshotRecord(session: "s", bytes: [1])]))
        try a.commit(group(removed: ["s"]))
        #expect(a.statistics.snapshots == 0)
        let b = try store(url, "b")
        _ = try b.load()
        guard case .here(let state) = try b.locate("s") else {
            Issue.record("an ended session is not free")
            return
        }
        #expect(state.entries.isEmpty && state.snapshots.isEmpty)
        // Ended and started again in one group: the new entries stay, and so does the claim.
        try b.commit(group(entries: [entry("s", "new")], removed: ["s"]))
        #expect(try store(url, "b").load().entries.map(\.bytes) == [Array("new".utf8)])
    }

    @Test func aSessionOfALiveInstanceIsServedThereAndNamesItsEndpoints() throws {
        let url = try server.createDatabase()
        let a = try store(url, "a")
        let b = try store(url, "b")
        _ = try a.load()
        _ = try b.load()
        // Asked about without claiming (an inspector), a session nobody has stays nobody's.
        #expect(try b.locate("s", claiming: false) == .nowhere)
        try claim(["s"], by: a)
        guard case .elsewhere(let owner) = try b.locate("s", claiming: false) else {
            Issue.record("b took a session a owns")
            return
        }
        #expect(owner.name == "a")
        #expect(owner.control == ["tcp://a:5860"] && owner.events == ["tcp://a:5861"])
        #expect(owner.alive && owner.sessions == 1)
        // What a writes is not b's to write.
        #expect(try b.commit(group(entries: [entry("s", "b's")])) == ["s"])
        #expect(try store(url, "a").load().entries.isEmpty)
    }

    @Test func anExpiredOwnersSessionIsTakenOverWithItsStateAndTheOwnerIsFencedOff() throws {
        let url = try server.createDatabase()
        let a = try store(url, "a", lease: 300)
        let b = try store(url, "b")
        _ = try a.load()
        _ = try b.load()
        try claim(["s", "t"], by: a)
        try a.commit(group(entries: [entry("s", "1"), entry("t", "2")]))
        // Before the lease ends the session stays a's.
        guard case .elsewhere = try b.locate("s") else {
            Issue.record("a session was taken over while its owner's lease ran")
            return
        }
        let lease = try a.makeLease()
        #expect(
            try waitUntil(within: .seconds(5)) {
                if case .here = try b.locate("s") { return true }
                return false
            }
        )
        #expect(try store(url, "b").load().entries.map(\.bytes) == [Array("1".utf8)])
        // a, back from a pause, learns from its own row that sessions were taken, and which it still owns; once.
        #expect(try a.ownedSessionsIfTaken() == ["t"])
        #expect(try a.ownedSessionsIfTaken() == nil)
        // It cannot write the session it lost; what it still owns is written.
        #expect(try a.commit(group(entries: [entry("s", "late"), entry("t", "3")])) == ["s"])
        let b2 = try store(url, "b")
        #expect(try b2.load().entries.map(\.bytes) == [Array("1".utf8)])
        // Its lease can be renewed: the instance was not registered again, it only lost a session.
        #expect(try lease.renew() == .renewed)
        #expect(try store(url, "a").load().entries.map(\.bytes) == [Array("2".utf8), Array("3".utf8)])
    }

    /// An instance paused in the middle of a transaction holds its row's lock: the server ends its connection after
    /// the lease, so that the others can take its sessions over; back, it writes nothing of what it lost.
    @Test func anInstancePausedInATransactionDoesNotHoldTheOthersBack() throws {
        let url = try server.createDatabase()
        let a = try store(url, "a", lease: 500)
        let b = try store(url, "b")
        _ = try a.load()
        _ = try b.load()
        try claim(["s"], by: a)
        // As if paused right after its writer locked its row.
        try a.connection.execute("BEGIN")
        try a.connection.run("SELECT token FROM flowbus_instances WHERE name = 'a' FOR UPDATE")
        let started = ContinuousClock.now
        #expect(
            try waitUntil(within: .seconds(10)) {
                if case .here = try b.locate("s") { return true }
                return false
            }
        )
        #expect(ContinuousClock.now - started < .seconds(5))
        // Back, its connection is gone: the next write reconnects, and is refused for the session it lost.
        #expect(try a.commit(group(entries: [entry("s", "late")])) == ["s"])
        #expect(try store(url, "b").load().entries.isEmpty)
    }

    /// Sessions come with the flows they were written with: a restart under the same name gets its previous run's,
    /// a takeover the previous owner's; a name's lease that is renewed is refused, one that lapses is waited for.
    @Test func sessionsComeWithTheFlowsTheyWereWrittenWith() throws {
        let url = try server.createDatabase()
        let old = try store(url, "old", lease: 400, flows: "flows v1")
        _ = try old.load()
        try claim(["s"], by: old)
        try old.commit(group(entries: [entry("s", "1")]))
        let restarted = try store(url, "old", lease: 400, flows: "flows v2")
        try restarted.awaitName()  // not renewed: waited for
        let state = try restarted.load()
        #expect(state.metadata["flows"] == "flows v1" && state.metadata["flowsFile"] == "/etc/old.yaml")
        let other = try store(url, "other", flows: "flows v3")
        _ = try other.load()
        #expect(
            try waitUntil(within: .seconds(5)) {
                guard case .here(let taken) = try other.locate("s") else { return false }
                return taken.metadata["flows"] == "flows v2" && taken.entries.count == 1
            }
        )
        // A name whose lease is renewed belongs to a flowd that runs.
        let lease = try other.makeLease()
        let renewing = Thread {
            for _ in 0..<20 {
                _ = try? lease.renew()
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        renewing.start()
        let impostor = try store(url, "other", lease: 400)
        #expect(throws: StoreError.self) { try impostor.awaitName() }
    }

    @Test func aSecondRegistrationUnderOneNameFencesTheFirstOff() throws {
        let url = try server.createDatabase()
        let first = try store(url, "a")
        _ = try first.load()
        try claim(["s"], by: first)
        let lease = try first.makeLease()
        let second = try store(url, "a")
        _ = try second.load()
        #expect(throws: StoreError.self) { try first.commit(group(entries: [entry("s", "stale")])) }
        do {
            try first.commit(group(entries: [entry("s", "stale")]))
        } catch {
            #expect(error.code == .fenced)
        }
        #expect(try lease.renew() == .fenced)
        try second.commit(group(entries: [entry("s", "fresh")]))
        #expect(try store(url, "a").load().entries.map(\.bytes) == [Array("fresh".utf8)])
    }

    @Test func theLiveInstancesShareTheSessionsOfADeadOne() throws {
        let url = try server.createDatabase()
        let dead = try store(url, "dead", lease: 200)
        _ = try dead.load()
        let sessions = (0..<10).map { "k\($0)" }
        try claim(sessions, by: dead)
        try dead.commit(group(entries: sessions.map { entry($0, $0) }))
        let b = try store(url, "b")
        let c = try store(url, "c")
        _ = try b.load()
        _ = try c.load()
        #expect(try b.adoptOrphans(limit: 100).entries.isEmpty)  // the lease still runs
        #expect(try waitUntil(within: .seconds(5)) { try b.members().first { $0.name == "dead" }?.alive == false })
        // Each takes its share of what is left (half, rounded up), round after round, until nothing is.
        let first = try b.adoptOrphans(limit: 100)
        #expect(first.entries.count == 5)
        var adopted = first.entries.map(\.session)
        for round in 0..<10 where adopted.count < sessions.count {
            adopted += try (round % 2 == 0 ? c : b).adoptOrphans(limit: 100).entries.map(\.session)
        }
        #expect(adopted.sorted() == sessions.sorted())
        let members = try b.members()
        #expect(members.map(\.name) == ["b", "c", "dead"])
        #expect(members.map(\.sessions).reduce(0, +) == 10 && members.last?.sessions == 0)
        // The limit holds.
        let d = try store(url, "d", lease: 200)
        _ = try d.load()
        try claim(["x", "y", "z"], by: d)
        #expect(try waitUntil(within: .seconds(5)) { try b.members().first { $0.name == "d" }?.alive == false })
        #expect(try b.adoptOrphans(limit: 1).entries.isEmpty)  // no entries, but one session moved
        #expect(try b.members().first { $0.name == "d" }?.sessions == 2)
    }

    @Test func aNewerSchemaIsRefusedAndADamagedOneIsTold() throws {
        let newer = try server.createDatabase("newer")
        _ = try store(newer, "a")
        try server.psql("UPDATE flowbus_schema SET version = 99", database: "newer")
        do {
            _ = try store(newer, "a")
            Issue.record("a newer schema was used")
        } catch {
            #expect(error.code == .newerFormat)
            #expect(error.message.contains("schema 99"))
        }
        let damaged = try server.createDatabase("damaged")
        _ = try store(damaged, "a")
        try server.psql("DROP TABLE flowbus_journal", database: "damaged")
        do {
            _ = try store(damaged, "a")
            Issue.record("a damaged schema was used")
        } catch {
            #expect(error.code == .corrupted)
        }
    }

    @Test func anUnreachableServerIsToldAfterTheRetryWindow() throws {
        let url = "postgresql:///postgres?host=\(server.directory)/nowhere&user=flowbus&password=secret"
        do {
            _ = try store(url, "a", retry: .milliseconds(600))
            Issue.record("connected to nothing")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("cannot connect to PostgreSQL"))
            #expect(!error.message.contains("secret"))
        }
    }

    @Test func aCommitWaitsForARestartedServerAndWritesOnce() throws {
        let url = try server.createDatabase()
        let a = try store(url, "a")
        _ = try a.load()
        try claim(["s"], by: a)
        try a.commit(group(entries: [entry("s", "1")]))
        server.stop(immediately: true)
        let restarted = Thread { [server] in
            Thread.sleep(forTimeInterval: 1)
            try? server.start()
        }
        restarted.start()
        try a.commit(group(entries: [entry("s", "2")]))
        try a.commit(group(entries: [entry("s", "3")]))
        #expect(try store(url, "a").load().entries.map(\.bytes) == ["1", "2", "3"].map { Array($0.utf8) })
    }

    /// Instance `a` of a fleet on `url` (a minute's lease), telling `availability` whether the database answers.
    private func instanceA(_ url: String, availability: StoreAvailability) throws -> PostgresStore {
        try PostgresStore(
            url: url,
            instance: FleetInstance(
                name: "a",
                control: ["tcp://a:5860"],
                events: ["tcp://a:5861"],
                leaseMilliseconds: 60_000,
                flows: "flows v1",
                flowsFile: "/etc/a.yaml"
            ),
            durability: .os,
            availability: availability
        )
    }

    /// A lease renewed on a connection the server closed while it restarted (between two renewals) is renewed on a
    /// new one at once: no outage is told after the store answered again (the health check flipped twice per
    /// restart, from outside).
    @Test func aLeaseRenewedAfterARestartTellsNoOutage() throws {
        let url = try server.createDatabase()
        let availability = StoreAvailability(retryWindow: .seconds(30))
        let a = try instanceA(url, availability: availability)
        _ = try a.load()
        let lease = try a.makeLease()
        #expect(try lease.renew() == .renewed)
        server.stop()
        try server.start()
        #expect(try lease.renew() == .renewed)
        #expect(availability.outagesBegun == 0)
    }

    /// The same for the journal: a commit on a connection the server closed while it restarted (nothing was written
    /// meanwhile) goes through on a new connection, and no outage is told.
    @Test func aCommitAfterARestartTellsNoOutage() throws {
        let url = try server.createDatabase()
        let availability = StoreAvailability(retryWindow: .seconds(30))
        let a = try instanceA(url, availability: availability)
        _ = try a.load()
        try claim(["s"], by: a)
        try a.commit(group(entries: [entry("s", "1")]))
        server.stop()
        try server.start()
        try a.commit(group(entries: [entry("s", "2")]))
        #expect(availability.outagesBegun == 0)
        #expect(try store(url, "a").load().entries.map(\.bytes) == ["1", "2"].map { Array($0.utf8) })
    }

    @Test func aCommitWaitsForAServerBackAsAStandbyUntilItIsPromotedAndTellsTheOutage() throws {
        let url = try server.createDatabase()
        let availability = StoreAvailability(retryWindow: .seconds(30))
        let a = try instanceA(url, availability: availability)
        _ = try a.load()
        try claim(["s"], by: a)
        try a.commit(group(entries: [entry("s", "1")]))
        server.stop()
        try server.startAsStandby(acceptingReads: true)
        let promoted = Thread { [server] in
            Thread.sleep(forTimeInterval: 2)
            try? server.promote()
        }
        promoted.start()
        // The commit's thread waits; another sees the outage told meanwhile.
        let outageSeen = Locked(false)
        let watcher = Thread {
            let seen = waitUntil(within: .seconds(5)) { availability.outage != nil }
            outageSeen.withLock { $0 = seen }
        }
        watcher.start()
        try a.commit(group(entries: [entry("s", "2")]))
        #expect(waitUntil { watcher.isFinished })
        #expect(outageSeen.value)
        #expect(availability.outage == nil)
        #expect(try store(url, "a").load().entries.map(\.bytes) == ["1", "2"].map { Array($0.utf8) })
    }

    /// What the server says while it starts, recovers or is a standby is waited for; a refusal that will not
    /// change (an unknown database or role, a wrong password, a malformed address) is not.
    @Test(arguments: [
        (
            "FATAL:  the database system is not yet accepting connections; DETAIL: Consistent recovery state has not been yet reached.",
            false
        ),
        ("FATAL:  the database system is starting up", false),
        ("FATAL:  the database system is in recovery mode", false),
        ("FATAL:  the database system is not accepting connections; DETAIL: Hot standby mode is disabled.", false),
        ("FATAL:  sorry, too many clients already", false),
        ("PostgreSQL at x is a standby in recovery (read-only): waiting for it to be promoted", false),
        ("connection to server on socket \"/run/.s.PGSQL.5432\" failed: No such file or directory", false),
        ("FATAL:  database \"fleet\" does not exist", true),
        ("FATAL:  password authentication failed for user \"flowd\"", true),
        ("invalid connection option \"hots\"", true),
    ])
    func aServerThatWillAnswerIsWaitedForAndOneThatRefusesIsNot(message: String, permanent: Bool) {
        #expect(PostgresStore.isPermanent(StoreError(.unavailable, message)) == permanent)
    }

    @Test func passwordsAreNeverShown() {
        #expect(
            PostgresConnection.redacted("postgres://flowd:s3cret@db:5432/fleet") == "postgres://flowd:***@db:5432/fleet"
        )
        #expect(PostgresConnection.redacted("host=db password=s3cret user=flowd") == "host=db password=*** user=flowd")
        #expect(PostgresConnection.redacted("postgres://db/fleet") == "postgres://db/fleet")
        #expect(
            PostgresConnection.redacted("postgresql:///fleet?host=/run&password=s3cret&user=flowd")
                == "postgresql:///fleet?host=/run&password=***&user=flowd"
        )
    }
}
