import FlowBusTesting
import FlowCore
import FlowInspector
import FlowSpec
import FlowWebInspector
import FlowWire
import Testing

/// A recording replayed for the page: one frame per action, with the events it caused (as flowd publishes them,
/// numbered from 1) and its session's tree just after it; a recording longer than the page opens is refused.
@Suite struct RecordingFramesTests {
    let header = "{\"format\":\"flowbus-recording\",\"version\":1,\"session\":\"kiosk\",\"startedAt\":1000}"

    func frames(_ actions: [String]) throws -> RecordingFrames {
        let recording = try Recording(([header] + actions).joined(separator: "\n"))
        return try RecordingFrames(recording, specification: try FlowSpecification.load(contentsOf: demoFlows))
    }

    func kinds(_ frame: JSONValue) -> [String] {
        (frame.objectValue?["events"]?.arrayValue ?? []).compactMap { $0.objectValue?["kind"]?.stringValue }
    }

    @Test func eachActionBecomesAFrameWithItsEventsAndTheTreeAfterIt() throws {
        let replayed = try frames([
            #"{"at":0,"session":"kiosk","kind":"step","step":{"name":"dashboardIsRequired","parameters":{}},"stepper":"app","fate":"accepted"}"#,
            #"{"at":40,"session":"kiosk","kind":"step","step":{"name":"nothingLikeIt","parameters":{}},"stepper":"app","fate":"dropped"}"#,
        ])
        #expect(replayed.frames.count == 2)
        let first = replayed.frames[0]
        #expect(kinds(first).contains("sessionStarted") && kinds(first).contains("flowStarted"))
        #expect(kinds(first).contains("commands"), "the batches the presenter would have got")
        let fates = (first.objectValue?["events"]?.arrayValue ?? []).filter { $0.objectValue?["kind"] == "stepFate" }
        #expect(fates.last?.objectValue?["fields"]?.objectValue?["accepted"] == true)
        let flows = first.objectValue?["tree"]?.objectValue?["flows"]?.arrayValue ?? []
        #expect(flows.count >= 2, "the app's flow and the dashboard it started")
        #expect(first.objectValue?["at"] == 0 && replayed.frames[1].objectValue?["at"] == 40)
        let dropped = replayed.frames[1].objectValue?["events"]?.arrayValue?.last?.objectValue?["fields"]?.objectValue
        #expect(dropped?["accepted"] == false && dropped?["reason"] != nil)
        let numbers = replayed.frames.flatMap { frame in
            (frame.objectValue?["events"]?.arrayValue ?? []).compactMap { $0.objectValue?["seq"]?.intValue }
        }
        #expect(numbers == Array(1...replayed.eventCount), "numbered from 1, one by one")
        #expect(replayed.message(name: "kiosk.flowrec").objectValue?["flows"]?.objectValue?["rootFlow"] != nil)
    }

    @Test func sessionDataAndAPresenterLostAreEventsOfTheirFrames() throws {
        let replayed = try frames([
            #"{"at":0,"session":"kiosk","kind":"step","step":{"name":"dashboardIsRequired","parameters":{}},"stepper":"app"}"#,
            #"{"at":5,"session":"kiosk","kind":"sessionData","key":"permissions","value":["about"]}"#,
            #"{"at":9,"session":"kiosk","kind":"presenterLost","presenter":"main"}"#,
        ])
        #expect(kinds(replayed.frames[1]) == ["sessionData"])
        #expect(kinds(replayed.frames[2]).first == "unregistered")
    }

    @Test func anInputRefusedWhenRecordedIsAFrameThatSaysSo() throws {
        let replayed = try frames([
            #"{"at":0,"session":"kiosk","kind":"visibility","presenter":"main","visibility":"visible","presentables":[99],"fate":"refused","reason":"unknown presentable"}"#
        ])
        #expect(replayed.frames[0].objectValue?["skipped"]?.stringValue?.contains("unknown presentable") == true)
        #expect(kinds(replayed.frames[0]).isEmpty)
    }

    @Test func aRecordingLongerThanThePageOpensIsRefused() throws {
        let step =
            #"{"at":0,"session":"kiosk","kind":"step","step":{"name":"dashboardIsRequired","parameters":{}},"stepper":"app"}"#
        #expect(throws: RecordingError.self) {
            _ = try frames(Array(repeating: step, count: RecordingFrames.maxActions + 1))
        }
    }

    @Test func aLastLineCutShortIsLeftOutAndSaid() throws {
        let step =
            #"{"at":0,"session":"kiosk","kind":"step","step":{"name":"dashboardIsRequired","parameters":{}},"stepper":"app"}"#
        let recording = try Recording([header, step, String(step.prefix(30))].joined(separator: "\n"))
        #expect(recording.actions.count == 1 && recording.cutLine == 3)
        let replayed = try RecordingFrames(recording, specification: try FlowSpecification.load(contentsOf: demoFlows))
        #expect(
            replayed.message(name: "cut").objectValue?["cut"]?.stringValue?.contains("line 3 was cut short") == true
        )
        // Cut short but followed by a newline, or a whole line that is not an action: not a cut, an error.
        #expect(throws: RecordingError.self) {
            try Recording([header, step, String(step.prefix(30)), ""].joined(separator: "\n"))
        }
        #expect(throws: RecordingError.self) { try Recording([header, "[1, 2]"].joined(separator: "\n")) }
        #expect(try Recording([header, step].joined(separator: "\n")).cutLine == nil)
    }
}
