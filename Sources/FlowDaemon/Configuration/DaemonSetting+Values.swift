/// A value that does not suit its setting: what the setting takes, and what was given.
public struct SettingProblem: Error, Sendable, Hashable {
    /// What the setting takes: "a whole number of 1 or more".
    public let wanted: String
    /// What was given, as written.
    public let given: String

    /// The problem in words, the setting named as `name` (`--max-sessions`, `FLOWD_MAX_SESSIONS (maxSessions)`).
    public func description(naming name: String) -> String {
        given.isEmpty ? "\(name) needs a value" : "\(name) must be \(wanted), not '\(given.prefix(64))'"
    }
}

extension DaemonSetting {
    /// What this setting takes, in words.
    public var wanted: String {
        switch kind {
        case .count: "a whole number of 1 or more"
        case .countOrZero: "0 or a positive whole number"
        case .toggle: "true or false"
        case .choice(let words): words.dropLast().joined(separator: ", ") + " or " + (words.last ?? "")
        case .duration: "a duration such as 7d, 12h, 30m or 45s" + (self == .snapshotInterval ? ", longer than 0" : "")
        case .endpoints: "endpoints written tcp://HOST:PORT or ipc:///PATH"
        case .text, .secret: "a value"
        case .authorizations: "ID=PUBLIC_KEY[:SESSIONS[:ROLES]] entries"
        }
    }

    /// `raw` — a number, a text, texts or a truth, as a flag, a variable or the file gives it — as this setting's
    /// value (a duration read, one endpoint made a list), or why it does not suit the setting.
    public func value(from raw: SettingValue) -> Result<SettingValue, SettingProblem> {
        let refuse = { (given: String) in
            Result<SettingValue, SettingProblem>.failure(SettingProblem(wanted: wanted, given: given))
        }
        switch (kind, raw) {
        case (.count, .text(let text)), (.countOrZero, .text(let text)):
            guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else { return refuse(text) }
            return value(from: .number(number))
        case (.count, .number(let number)):
            return number > 0 ? .success(raw) : refuse("\(number)")
        case (.countOrZero, .number(let number)):
            return number >= 0 ? .success(raw) : refuse("\(number)")
        case (.toggle, .toggle):
            return .success(raw)
        case (.choice(let words), .text(let word)):
            // In any case, as flags take them (DEBUG, Json).
            return words.contains(word.lowercased()) ? .success(.text(word.lowercased())) : refuse(word)
        case (.duration, .text(let text)):
            guard let duration = DurationText.parse(text), self != .snapshotInterval || duration > .zero else {
                return refuse(text)
            }
            return .success(.duration(duration))
        case (.duration, .duration):
            return .success(raw)
        case (.endpoints, .text(let endpoint)):
            return value(from: .texts([endpoint]))
        case (.endpoints, .texts(let endpoints)):
            guard !endpoints.isEmpty else { return refuse("") }
            if let bad = endpoints.first(where: { Self.endpointProblem($0) != nil }) {
                return .failure(
                    SettingProblem(wanted: Self.endpointProblem(bad) ?? wanted, given: bad.isEmpty ? "''" : bad)
                )
            }
            return .success(raw)
        case (.text, .text(let text)), (.secret, .text(let text)):
            return text.isEmpty ? refuse("") : .success(raw)
        case (.authorizations, .authorizations):
            return .success(raw)
        default:
            return refuse("\(raw)")
        }
    }
}

extension DaemonSetting {
    /// What is wrong with an endpoint, as the setting wants it: `nil` for `tcp://HOST:PORT` (PORT may be `*`) and
    /// `ipc:///PATH`.
    static func endpointProblem(_ endpoint: String) -> String? {
        if endpoint.hasPrefix("ipc://") {
            return endpoint.count > "ipc://".count ? nil : "an ipc endpoint with its path, ipc:///PATH"
        }
        if endpoint.hasPrefix("tcp://") {
            let address = endpoint.dropFirst("tcp://".count)
            guard let colon = address.lastIndex(of: ":"), colon != address.startIndex else {
                return "a tcp endpoint with its host and port, tcp://HOST:PORT"
            }
            let port = address[address.index(after: colon)...]
            return port == "*" || UInt16(port).map { $0 > 0 } == true
                ? nil : "a tcp endpoint with a port from 1 to 65535 (or *), tcp://HOST:PORT"
        }
        return "endpoints written tcp://HOST:PORT or ipc:///PATH"
    }
}

extension DaemonSettings {
    /// What is wrong with these settings' values, each named by its flag: for settings given as flags, checked
    /// before anything else (they are checked again, with the others, when read).
    public var flagProblems: [String] {
        DaemonSetting.all.compactMap { setting in
            guard let value = self[setting], case .failure(let problem) = setting.value(from: value) else {
                return nil
            }
            return problem.description(naming: setting.flag)
        }
    }
}
