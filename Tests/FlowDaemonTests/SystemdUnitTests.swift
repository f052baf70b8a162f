import FlowBusTesting
import Foundation
import Glibc
import Testing

/// The systemd unit in deploy/systemd, read by systemd's own tools: it verifies, it rates at most 1.5 in
/// `systemd-analyze security`, and the system calls a real flowd makes (traced with strace through a start, a
/// session, a reload and a stop) are all inside the unit's `SystemCallFilter=` allow list, so that the filter
/// never refuses flowd what it needs.
@Suite struct SystemdUnitTests {
    let unit = repositoryRoot.appendingPathComponent("deploy/systemd/flowd.service").path

    /// The unit with its binary's path replaced by the built flowd, in a directory of its own.
    func unitWithBuiltFlowd(in scratch: ScratchDirectory) throws -> String {
        let text = try String(contentsOfFile: unit, encoding: .utf8)
            .replacingOccurrences(of: "/usr/bin/flowd", with: try builtProduct("flowd"))
        let path = scratch.path + "/flowd.service"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func theUnitVerifies() throws {
        let scratch = ScratchDirectory("unit")
        // Without --man=no, verify also looks for man:flowd(1), which the package installs (and its test checks).
        let verified = try run("/usr/bin/systemd-analyze", ["verify", "--man=no", try unitWithBuiltFlowd(in: scratch)])
        #expect(verified.status == 0, "\(verified.output)\(verified.errors)")
        #expect(verified.errors.isEmpty, "\(verified.errors)")
    }

    @Test func theUnitRatesAtMostOnePointFive() throws {
        let rated = try run("/usr/bin/systemd-analyze", ["security", "--offline=true", unit])
        let summary = (rated.output + rated.errors).split(separator: "\n").first { $0.contains("Overall exposure") }
        let level = summary.flatMap { line in
            line.split(separator: " ").compactMap { Double($0) }.first
        }
        #expect(level != nil && level! <= 1.5, "\(summary.map(String.init) ?? rated.output + rated.errors)")
    }

    /// Every system call of `groups` (filter groups such as `@system-service`), nested groups expanded.
    func systemCalls(of groups: [String]) throws -> Set<String> {
        var calls: Set<String> = []
        var pending = groups
        var seen: Set<String> = []
        while let group = pending.popLast() {
            guard seen.insert(group).inserted else { continue }
            let listed = try run("/usr/bin/systemd-analyze", ["syscall-filter", group])
            #expect(listed.status == 0, "\(listed.errors)")
            for line in listed.output.split(separator: "\n").dropFirst() {
                let word = line.trimmingCharacters(in: .whitespaces)
                if word.hasPrefix("@") {
                    pending.append(word)
                } else if !word.isEmpty, !word.hasPrefix("#") {
                    calls.insert(word)
                }
            }
        }
        return calls
    }

    /// The filter lines of the unit: what it allows and what it takes away.
    func unitFilter() throws -> (allowed: [String], denied: [String]) {
        let lines = try String(contentsOfFile: unit, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("SystemCallFilter=") }
            .map { $0.dropFirst("SystemCallFilter=".count) }
        let allowed = lines.filter { !$0.hasPrefix("~") }.flatMap { $0.split(separator: " ").map(String.init) }
        let denied = lines.filter { $0.hasPrefix("~") }.flatMap {
            $0.dropFirst().split(separator: " ").map(String.init)
        }
        return (allowed, denied)
    }

    @Test func flowdCallsNothingTheUnitsFilterRefuses() throws {
        let filter = try unitFilter()
        #expect(filter.allowed == ["@system-service"] && filter.denied.contains("@privileged"), "\(filter)")
        let permitted = try systemCalls(of: filter.allowed).subtracting(try systemCalls(of: filter.denied))

        let scratch = ScratchDirectory("trace")
        let trace = scratch.path + "/trace"
        // As the unit runs it: not as root (SQLite, say, gives new files the database's owner only as root).
        let asUnprivileged =
            geteuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        chmod(scratch.path, 0o777)
        let directory = uniqueDirectory("tr")
        let endpoints = [
            "--control", "ipc://\(directory)/control", "--control", "tcp://127.0.0.1:*", "--events",
            "ipc://\(directory)/events", "--events", "tcp://127.0.0.1:*",
        ]
        let daemon = try DaemonProcess(
            ["--flows", demoFlows, "--ipc-mode", "0660"] + endpoints,
            launcher: asUnprivileged + ["/usr/bin/strace", "-f", "-qq", "-o", trace]
        )
        let ready = try daemon.readyEndpoints()
        let flowctl = try builtProduct("flowctl")
        let connection = ["--control", ready.control[0], "--events", ready.events[0]]
        #expect(try run(flowctl, ["ping", "--count", "1"] + connection).status == 0)
        // A session with a real presenter and stepper: registrations, steps, commands, visibility, the journal.
        let presenter = try ChildProcess("flowdemo", ["presenter", "--plain", "--session", "traced"] + connection)
        let app = try ChildProcess("flowdemo", ["app", "--returning", "--session", "traced"] + connection)
        #expect(waitUntil { (try? run(flowctl, ["tree", "traced"] + connection).status) == 0 })
        _ = try presenter.waitForOutput(containing: "WishlistTable")
        let overTCP = ["--control", ready.control[1], "--events", ready.events[1]]
        #expect(try run(flowctl, ["list"] + overTCP).status == 0)
        // flowd is the tracer's child: signal it, not strace.
        let flowd = try #require(daemon.launchedDaemonID)
        kill(flowd, SIGHUP)
        _ = try daemon.line(containing: "flows reloaded")
        kill(flowd, SIGTERM)
        #expect(daemon.exitStatus(within: .seconds(20)) == 0, "\(daemon.standardError)")
        withExtendedLifetime((presenter, app)) {}

        let traced = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let called = Set(
            traced.compactMap { line -> String? in
                // "1234  name(args..." or "1234  <... name resumed>..."
                let rest = line.drop { $0 != " " }.drop { $0 == " " }
                guard let open = rest.firstIndex(of: "("), !rest.hasPrefix("<..."), !rest.hasPrefix("+++"),
                    !rest.hasPrefix("---")
                else { return nil }
                return String(rest[..<open])
            }
        )
        #expect(called.count > 20, "strace saw too little: \(traced.prefix(5))")
        let refused = called.subtracting(permitted).sorted()
        #expect(refused.isEmpty, "flowd called what the unit's SystemCallFilter refuses: \(refused)")
    }
}
