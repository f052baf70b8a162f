import FlowBusTesting
import Foundation
import Testing

/// flowd's `--metrics` endpoint, scraped from a real flowd serving a real session (the demo's presenter and app
/// stepper as processes, flowctl emitting a step that is dropped), its text parsed by the Prometheus project's own
/// Python client (`prometheus_client.parser`, Debian's python3-prometheus-client); and the health checks. Bad
/// input tried: an address that is not HOST:PORT, a port in use, an address not of this machine, a path that
/// does not exist.
@Suite struct MetricsEndpointTests {
    /// What the scraper saw: the status, the content type, the body, and when parsed every sample by
    /// `name{label="value",...}` (labels sorted) and every family's type.
    struct Scrape: Decodable {
        let status: Int
        let contentType: String?
        let body: String
        let samples: [String: Double]?
        let families: [String: String]?
    }

    static let scraper = """
        import json, sys, urllib.request, urllib.error
        from prometheus_client.parser import text_string_to_metric_families
        try:
            response = urllib.request.urlopen(sys.argv[1], timeout=5)
            status, body, headers = response.status, response.read().decode(), response.headers
        except urllib.error.HTTPError as error:
            status, body, headers = error.code, error.read().decode(), error.headers
        out = {"status": status, "contentType": headers.get("Content-Type"), "body": body}
        if sys.argv[2:] == ["parse"]:
            out["samples"], out["families"] = {}, {}
            for family in text_string_to_metric_families(body):
                out["families"][family.name] = family.type
                for sample in family.samples:
                    labels = ",".join('%s="%s"' % item for item in sorted(sample.labels.items()))
                    out["samples"][sample.name + ("{%s}" % labels if labels else "")] = sample.value
        print(json.dumps(out))
        """

    func scrape(_ url: String, parse: Bool = false) throws -> Scrape {
        let ran = try run("/usr/bin/python3", ["-c", Self.scraper, url] + (parse ? ["parse"] : []))
        guard ran.status == 0 else { throw TestFailure("the scraper failed: \(ran.errors)") }
        return try JSONDecoder().decode(Scrape.self, from: Data(ran.output.utf8))
    }

    /// The base URL flowd says it serves metrics on.
    func metricsBase(of daemon: DaemonProcess) throws -> String {
        let line = try daemon.line(containing: "metrics and health checks on http://")
        let start = try #require(line.range(of: "http://"))
        let end = try #require(line.range(of: "/metrics", range: start.upperBound..<line.endIndex))
        return String(line[start.lowerBound..<end.lowerBound])
    }

    @Test func aScrapeShowsStepsSessionsPeersLatenciesAndTheBuild() throws {
        let directory = uniqueDirectory("mx")
        let daemon = try DaemonProcess(
            [
                "--flows", demoFlows, "--control", "ipc://\(directory)/control", "--events",
                "ipc://\(directory)/events", "--metrics", "127.0.0.1:0",
            ]
        )
        let base = try metricsBase(of: daemon)
        let connection = ["--control", "ipc://\(directory)/control", "--events", "ipc://\(directory)/events"]
        let presenter = try ChildProcess("flowdemo", ["presenter", "--plain", "--session", "metered"] + connection)
        let app = try ChildProcess("flowdemo", ["app", "--returning", "--session", "metered"] + connection)
        _ = try presenter.waitForOutput(containing: "WishlistTable")
        // A step no flow is bound to: dropped (unboundStepper).
        let flowctl = try builtProduct("flowctl")
        let emitted = try run(
            flowctl,
            ["emit", "introIsComplete", "--session", "metered", "--as", "nobody"] + connection
        )
        #expect(emitted.status == 2, "\(emitted.output)\(emitted.errors)")

        // The loop publishes its figures every tick (half a heartbeat interval).
        var scrape = try scrape(base + "/metrics", parse: true)
        let published = try waitUntil {
            scrape = try self.scrape(base + "/metrics", parse: true)
            return (scrape.samples?["flowd_steps_total{fate=\"dropped\"}"] ?? 0) >= 1
                && (scrape.samples?["flowd_peers{role=\"presenter\"}"] ?? 0) == 1
        }
        #expect(published, "\(scrape.body)")
        #expect(scrape.status == 200)
        #expect(scrape.contentType == "text/plain; version=0.0.4; charset=utf-8")
        let samples = try #require(scrape.samples)
        let families = try #require(scrape.families)
        #expect(samples["flowd_steps_total{fate=\"accepted\"}"] ?? 0 >= 1, "\(samples)")
        #expect(samples["flowd_steps_dropped_total{reason=\"unboundStepper\"}"] == 1, "\(samples)")
        #expect(samples["flowd_steps_received_total"] ?? 0 >= 2)
        #expect(samples["flowd_commands_total"] ?? 0 >= 1)
        #expect(samples["flowd_command_batches_total"] ?? 0 >= 1)
        #expect(samples["flowd_messages_received_total{type=\"STEP\"}"] ?? 0 >= 1, "\(samples.keys.sorted())")
        #expect(samples["flowd_messages_sent_total{type=\"COMMANDS\"}"] ?? 0 >= 1)
        #expect(samples["flowd_sessions"] == 1)
        #expect(samples["flowd_sessions_created_total"] == 1)
        #expect(samples["flowd_peers{role=\"stepper\"}"] ?? 0 >= 1)
        #expect(samples["flowd_peers{role=\"guard\"}"] == 0)
        #expect(samples["flowd_step_decision_seconds_count"] ?? 0 >= 2)
        #expect(
            samples["flowd_step_decision_seconds_bucket{le=\"+Inf\"}"] == samples["flowd_step_decision_seconds_count"]
        )
        #expect(samples["flowd_journal_write_seconds_count"] ?? 0 >= 1)
        #expect(families["flowd_step_decision_seconds"] == "histogram")
        #expect(families["flowd_steps"] == "counter")
        #expect(families["flowd_sessions"] == "gauge")
        #expect(samples["process_resident_memory_bytes"] ?? 0 > 1_000_000)
        #expect(samples["process_open_fds"] ?? 0 > 5)
        #expect(samples["process_cpu_seconds_total"] ?? 0 > 0)
        let build = samples.keys.first { $0.hasPrefix("flowd_build_info{") } ?? ""
        #expect(build.contains("version=\"0.") && build.contains("commit=\""), "\(build)")
        #expect(scrape.body.contains("# HELP flowd_steps_dropped_total Steps dropped, by reason"))

        #expect(try self.scrape(base + "/livez").status == 200)
        let ready = try self.scrape(base + "/readyz")
        #expect(ready.status == 200 && ready.body == "ready\n", "\(ready)")
        let missing = try self.scrape(base + "/nothing")
        #expect(missing.status == 404 && missing.body.contains("/metrics"), "\(missing)")
        withExtendedLifetime((presenter, app)) {}
        #expect(daemon.signal(SIGTERM) == 0)
    }

    @Test func idleConnectionsCannotExhaustFlowdsFiles() throws {
        let directory = uniqueDirectory("mi")
        let daemon = try DaemonProcess(
            [
                "--flows", demoFlows, "--ephemeral", "--control", "ipc://\(directory)/control", "--events",
                "ipc://\(directory)/events", "--metrics", "127.0.0.1:0",
            ]
        )
        let base = try metricsBase(of: daemon)
        let port = try #require(base.split(separator: ":").last.map(String.init))
        // The sockets flowd holds (its own ZeroMQ ones, the listener, connections).
        let sockets = {
            let directory = "/proc/\(daemon.process.processIdentifier)/fd"
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            return entries.filter {
                ((try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)) ?? "")
                    .hasPrefix("socket:")
            }.count
        }
        let before = sockets()
        // 300 connections that never send a request, held while flowd is asked; then how long flowd keeps one.
        let holder = """
            import socket, sys, time
            opened = time.monotonic()
            held = [socket.create_connection(("127.0.0.1", int(sys.argv[1]))) for _ in range(300)]
            print("held", flush=True)
            sys.stdin.readline()
            first = held[0]
            first.settimeout(30)
            try:
                closed = first.recv(1) == b""
            except ConnectionResetError:
                closed = True  # closed by flowd, with a reset under load
            except Exception as error:
                print("failed", repr(error), flush=True)
                sys.exit(1)
            print("closed" if closed else "open", round(time.monotonic() - opened, 1), flush=True)
            """
        let holding = Process()
        holding.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holding.arguments = ["-c", holder, port]
        let input = Pipe()
        let output = Pipe()
        holding.standardInput = input
        holding.standardOutput = output
        holding.standardError = output
        try holding.run()
        defer { if holding.isRunning { holding.terminate() } }
        // The holder's output, line by line: a read may come back empty (a signal) or with part of a line.
        let reader = output.fileHandleForReading
        var said = ""
        func lines(_ count: Int, within limit: Duration) -> [String] {
            let deadline = ContinuousClock.now + limit
            while said.filter({ $0 == "\n" }).count < count && ContinuousClock.now < deadline {
                let data = reader.availableData
                if data.isEmpty && !holding.isRunning { break }
                said += String(decoding: data, as: UTF8.self)
            }
            return said.split(separator: "\n").map(String.init)
        }
        #expect(lines(1, within: .seconds(30)).first == "held", "\(said)")
        // flowd keeps at most its limit of them (those beyond are closed as they are accepted).
        #expect(
            waitUntil(within: .seconds(5)) { sockets() <= before + 32 + 2 },
            "flowd has \(sockets()) sockets, \(before) before"
        )
        let flowctl = try builtProduct("flowctl")
        let pinged = try run(
            flowctl,
            [
                "ping", "--count", "1", "--control", "ipc://\(directory)/control", "--events",
                "ipc://\(directory)/events",
            ]
        )
        #expect(pinged.status == 0, "\(pinged)")
        input.fileHandleForWriting.write(Data("go\n".utf8))
        // The first connection, one flowd took, is closed once silent for the idle timeout (10 s).
        let closed = (lines(2, within: .seconds(40)).dropFirst().first ?? "").split(separator: " ")
        let ended = holding.isRunning ? "running" : "ended with \(holding.terminationStatus)"
        #expect(closed.first == "closed", "an idle connection stayed open: \(closed) (the holder \(ended))")
        #expect(closed.count >= 2 && Double(closed[1]) ?? 0 >= 9, "closed after \(closed.dropFirst()) s")
        holding.terminate()
        holding.waitUntilExit()
        // Once they are gone, scrapes are served again.
        #expect(waitUntil { (try? self.scrape(base + "/livez").status) == 200 })
        #expect(daemon.signal(SIGTERM) == 0)
    }

    @Test func addressesThatCannotBeServedAreRefusedClearly() throws {
        let directory = uniqueDirectory("mb")
        let base = [
            "--flows", demoFlows, "--ephemeral", "--control", "ipc://\(directory)/control", "--events",
            "ipc://\(directory)/events",
        ]
        let flowd = try builtProduct("flowd")
        let notAnAddress = try run(flowd, base + ["--metrics", "nonsense"])
        #expect(notAnAddress.status == 1)
        #expect(notAnAddress.errors.contains("metrics (--metrics) takes HOST:PORT"), "\(notAnAddress.errors)")
        let badPort = try run(flowd, base + ["--metrics", "127.0.0.1:99999"])
        #expect(badPort.status == 1 && badPort.errors.contains("the port must be a number"), "\(badPort.errors)")
        let notHere = try run(flowd, base + ["--metrics", "192.0.2.1:9862"])
        #expect(notHere.status == 1)
        #expect(notHere.errors.contains("192.0.2.1 is not an address of this machine"), "\(notHere.errors)")

        // A port another flowd serves its metrics on.
        let first = try DaemonProcess(
            [
                "--flows", demoFlows, "--ephemeral", "--control", "ipc://\(directory)/c1", "--events",
                "ipc://\(directory)/e1", "--metrics", "127.0.0.1:0",
            ]
        )
        let taken = try metricsBase(of: first).replacingOccurrences(of: "http://", with: "")
        let inUse = try run(flowd, base + ["--metrics", taken])
        #expect(inUse.status == 1)
        #expect(inUse.errors.contains("is in use by another process"), "\(inUse.errors)")
        #expect(first.signal(SIGTERM) == 0)
    }
}
