import FlowBusTesting
import FlowWire
import Foundation
import Glibc
import Testing
import ZeroMQ

@testable import FlowDaemon

/// flowd's log lines: text with millisecond UTC timestamps (none under journald, which gets a priority instead),
/// JSON one object per line, every line one line whatever a peer sends, and a peer's text quoted and shortened.
/// Bad input tried: a routing id holding a newline and a forged log line (its HELLO refused), a name holding
/// spaces, quotes and `=`, 127 characters long (flowd takes 128 at most).
@Suite struct LogFormatTests {
    let time = timeval(tv_sec: 1_795_500_000, tv_usec: 7_000)

    @Test func textLinesHaveMillisecondsAndQuotedValues() {
        let line = LogLine(
            time: time,
            level: .info,
            message: "two\nlines",
            metadata: [("name", "a b"), ("peer", "kiosk/main"), ("said", "x=\"y\""), ("empty", "")],
            source: "FlowDaemon"
        )
        #expect(
            line.text(forJournal: false)
                == #"2026-11-24T06:00:00.007Z info two\nlines name="a b" peer=kiosk/main said="x=\"y\"" empty="""#
        )
        #expect(line.text(forJournal: true).hasPrefix("<6>two\\nlines name="))
    }

    @Test func jsonLinesAreObjectsWithEveryField() throws {
        let line = LogLine(
            time: time,
            level: .warning,
            message: "bad \"peer\"\u{1}",
            metadata: [("peer", "p\n1"), ("level", "shadowed")],
            source: "FlowDaemon"
        )
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.json.utf8)) as? [String: String])
        #expect(
            object == [
                "time": "2026-11-24T06:00:00.007Z", "level": "warning", "message": "bad \"peer\"\u{1}",
                "source": "FlowDaemon", "peer": "p\n1", "meta.level": "shadowed",
            ]
        )
        #expect(!line.json.contains("\n"))
    }

    @Test func longAndControlTextIsEscapedAndShortened() {
        let long = String(repeating: "x", count: 300) + "\u{7}"
        let escaped = LogLine.escaped(long, limit: LogLine.valueLimit)
        #expect(escaped == String(repeating: "x", count: 160) + "…(301 bytes)")
        #expect(LogLine.escaped("a\u{1B}[31mred", limit: 100) == "a\\u{1b}[31mred")
    }

    @Test func aPeersTextStaysOnOneLineInBothFormats() throws {
        for format in ["text", "json"] {
            let directory = uniqueDirectory("lf")
            let control = "ipc://\(directory)/control"
            let events = "ipc://\(directory)/events"
            let daemon = try DaemonProcess(
                [
                    "--flows", demoFlows, "--ephemeral", "--control", control, "--events", events, "--log-format",
                    format, "--log-level", "debug",
                ]
            )
            _ = try daemon.line(containing: "ready")
            let context = try Context()
            // A routing id with a newline and a forged line: its HELLO is refused (flowd takes no control character
            // in an id), and the refusal is logged on one line.
            let forger = try TestPeer(
                "kiosk/evil\n2026-01-01T00:00:00.000Z critical forged",
                session: "kiosk",
                context: context,
                control: control,
                events: events
            )
            try forger.send(.hello(Hello(role: .stepper, id: forger.id, name: "app", session: "kiosk")))
            let refusal = try forger.expect { if case .error(let error) = $0 { error } else { nil } }
            #expect(refusal.code == "malformedBody" && refusal.message.contains("control character"), "\(refusal)")
            _ = try daemon.line(containing: "refused a message")
            // A name with spaces, quotes and = (printable: taken), long enough to be shortened.
            let name = "evil fake line level=error \"quoted\"=" + String(repeating: "n", count: 90)
            let peer = try TestPeer("kiosk/ok", session: "kiosk", context: context, control: control, events: events)
            try peer.hello(.stepper, name: name)
            let registered = try daemon.line(containing: "registered")
            #expect(daemon.signal(SIGTERM) == 0)
            let lines = daemon.standardError.split(separator: "\n")
            #expect(!lines.contains { $0.contains("forged") && !$0.contains("refused") }, "\(lines)")
            if format == "json" {
                for line in lines {
                    let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
                    #expect(object?["time"] != nil && object?["level"] != nil && object?["message"] != nil, "\(line)")
                }
                let object = try #require(
                    JSONSerialization.jsonObject(with: Data(registered.utf8)) as? [String: String]
                )
                #expect(object["name"]?.hasPrefix("evil fake line level=error \"quoted\"=") == true)
                #expect(object["name"]?.hasSuffix("bytes)") == true, "\(object)")
            } else {
                #expect(registered.contains(#"name="evil fake line level=error \"quoted\"=nnn"#), "\(registered)")
                #expect(registered.contains("bytes)"), "\(registered)")
                let stamp = try #require(registered.split(separator: " ").first)
                #expect(stamp.count == 24 && stamp.hasSuffix("Z") && stamp.contains("."), "\(stamp)")
            }
        }
    }

    @Test func underJournaldLinesCarryAPriorityAndNoTimestamp() throws {
        let directory = uniqueDirectory("lj")
        // systemd names the stream it connected to standard error; here, the pipe the test reads.
        let daemon = try DaemonProcess(
            [
                "--flows", demoFlows, "--ephemeral", "--control", "ipc://\(directory)/control", "--events",
                "ipc://\(directory)/events",
            ],
            launcher: ["/bin/sh", "-c", #"JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec "$0" "$@""#]
        )
        let ready = try daemon.line(containing: "ready")
        #expect(ready.hasPrefix("<6>flowd "), "\(ready)")
        #expect(daemon.signal(SIGTERM) == 0)
        // A JOURNAL_STREAM naming another stream (flowd's output went elsewhere) is not the journal.
        #expect(!DaemonLogHandler.standardErrorIsJournal(["JOURNAL_STREAM": "1:1"]))
        #expect(!DaemonLogHandler.standardErrorIsJournal(["JOURNAL_STREAM": "nonsense"]))
    }
}
