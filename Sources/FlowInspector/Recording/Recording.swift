import FlowCore
import FlowSpec
import Foundation

/// A recording: its header line, then its actions, one JSON object per line.
///
/// ```
/// {"format":"flowbus-recording","version":1,"session":"kiosk-7","startedAt":1790000000000,"flowd":"0.1.0"}
/// {"at":0,"session":"kiosk-7","kind":"visibility","presenter":"main","visibility":"visible","presentables":[1]}
/// {"at":412,"session":"kiosk-7","kind":"step","step":{"name":"login","parameters":{}},"stepper":"app"}
/// ```
public struct Recording: Sendable, Hashable {
    /// The first line.
    public struct Header: Sendable, Hashable, Codable {
        /// Always `flowbus-recording`.
        public var format = "flowbus-recording"
        /// The file format's version, 1.
        public var version = 1
        /// The session recorded, or `nil` when every session was.
        public var session: String?
        /// When recording started (ms since 1970).
        public var startedAt: Int64
        /// The version of the flowd recorded.
        public var flowd: String?

        public init(session: String?, startedAt: Int64, flowd: String?) {
            self.session = session
            self.startedAt = startedAt
            self.flowd = flowd
        }
    }

    public var header: Header
    public var actions: [RecordedAction]
    /// The number of the file's last line when it was cut short (no newline after it and not a whole action: the
    /// recorder was stopped while writing it) and so left out; `nil` when the file ends with a whole line.
    public var cutLine: Int?

    public init(header: Header, actions: [RecordedAction] = []) {
        self.header = header
        self.actions = actions
    }

    /// The sessions the actions go to, in order of first appearance.
    public var sessions: [String] {
        var seen: Set<String> = []
        return actions.map(\.session).filter { seen.insert($0).inserted }
    }

    /// Reads a recording file.
    /// - Throws: ``RecordingError`` naming the line that is not a header or an action.
    public init(contentsOf path: String) throws(RecordingError) {
        let data: Data
        do {
            data = try FileReading.data(path)
        } catch {
            throw RecordingError(line: nil, error.description)
        }
        try self.init(String(decoding: data, as: UTF8.self), file: path)
    }

    /// Reads a recording's text.
    public init(_ text: String, file: String = "<recording>") throws(RecordingError) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .filter { !$0.element.trimmingCharacters(in: .whitespaces).isEmpty }
        guard let first = lines.first else {
            throw RecordingError(line: nil, "\(file) is empty: a recording starts with its header line")
        }
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(Header.self, from: Data(first.element.utf8)),
            header.format == "flowbus-recording"
        else {
            throw RecordingError(line: first.offset + 1, "\(file) is not a FlowBus recording (no header line)")
        }
        guard header.version == 1 else {
            throw RecordingError(line: first.offset + 1, "recording version \(header.version) is not supported; 1 is")
        }
        var actions: [RecordedAction] = []
        var cutLine: Int?
        let lastOffset = lines.last?.offset
        for (offset, line) in lines.dropFirst() {
            let action: RecordedAction
            do {
                action = try decoder.decode(RecordedAction.self, from: Data(line.utf8))
            } catch {
                if offset == lastOffset, !text.hasSuffix("\n"), (try? JSONValue(parsing: Array(line.utf8))) == nil {
                    cutLine = offset + 1
                    break
                }
                throw RecordingError(line: offset + 1, "\(file):\(offset + 1): not an action: \(Self.describe(error))")
            }
            if let problem = action.problem {
                throw RecordingError(line: offset + 1, "\(file):\(offset + 1): \(problem)")
            }
            actions.append(action)
        }
        self.init(header: header, actions: actions)
        self.cutLine = cutLine
    }

    /// One line of the file: the header or an action.
    public static func line(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "'\(context.codingPath.map(\.stringValue).joined(separator: "."))': \(context.debugDescription)"
        case DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty: "invalid JSON"
        case DecodingError.dataCorrupted(let context):
            "'\(context.codingPath.map(\.stringValue).joined(separator: "."))': \(context.debugDescription)"
        default: "\(error)"
        }
    }
}

/// A recording that cannot be read.
public struct RecordingError: Error, Sendable, CustomStringConvertible {
    /// The line at fault (1-based), when one is.
    public var line: Int?
    public var message: String

    public init(line: Int?, _ message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { message }
}
