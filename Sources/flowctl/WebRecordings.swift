import FlowCore
import FlowInspector
import FlowSpec
import FlowWebInspector
import Foundation

/// Recordings opened in the page: replayed in this process with the flow file (`--flows`, or the one flowd runs
/// when flowctl can read it), and sent back to the page frame by frame, or an error that says what is wrong.
struct WebRecordings: Sendable {
    let flows: String?
    let hub: FeedHub

    func open(_ text: String, name: String, for page: Int, flowdFlows: String?) {
        do throws(RecordingError) {
            let recording = try Recording(text, file: name)
            guard let file = flows ?? flowdFlows else {
                throw RecordingError(
                    line: nil,
                    "no flow file to replay \(name) with: start flowctl web with --flows FILE"
                )
            }
            let specification: FlowSpecification
            do {
                specification = try FlowSpecification.load(contentsOf: file)
            } catch {
                throw RecordingError(line: nil, "cannot replay \(name): the flow file \(file) cannot be used: \(error)")
            }
            hub.send(try RecordingFrames(recording, specification: specification).message(name: name), to: page)
        } catch {
            hub.send(["type": "error", "message": .string(error.message)], to: page)
        }
    }
}
