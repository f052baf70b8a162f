/// A setting's value, as read from wherever it was given.
public enum SettingValue: Sendable, Hashable {
    /// A whole number.
    case number(Int)
    /// Text.
    case text(String)
    /// A list of texts (endpoints; `--authorize` entries).
    case texts([String])
    /// true or false.
    case toggle(Bool)
    /// A duration.
    case duration(Duration)
    /// Client ids, each with its CURVE public key and, optionally, a grant.
    case authorizations([ClientAuthorization])
}

/// Where a setting's value came from, as `flowd config` and errors name it.
public enum SettingSource: Sendable, Hashable, CustomStringConvertible {
    /// Nothing gave it: flowd's built-in default.
    case builtIn
    /// A command-line flag.
    case commandLine(flag: String)
    /// An environment variable.
    case environment(variable: String)
    /// A line of the configuration file.
    case file(path: String, line: Int)

    public var description: String {
        switch self {
        case .builtIn: "default"
        case .commandLine(let flag): flag
        case .environment(let variable): variable
        case .file(let path, let line): "\(path):\(line)"
        }
    }
}

/// The settings given to flowd, each with where it came from; what none gave keeps its default
/// (``DaemonConfiguration`` holds the defaults and checks how the values fit together).
public struct DaemonSettings: Sendable, Hashable {
    private var values: [String: SettingValue] = [:]
    private var sources: [String: SettingSource] = [:]
    /// What flowd should say about the sources without refusing them (environment variables it ignored).
    public var warnings: [String] = []

    /// No settings: every default.
    public init() {}

    /// The value given for `setting`, if any.
    public subscript(setting: DaemonSetting) -> SettingValue? {
        values[setting.key]
    }

    /// Gives `setting` a value from `source` (a flag, when not said).
    public mutating func set(_ setting: DaemonSetting, _ value: SettingValue, from source: SettingSource? = nil) {
        values[setting.key] = value
        sources[setting.key] = source ?? .commandLine(flag: setting.flag)
    }

    /// Where `setting`'s value came from.
    public func source(of setting: DaemonSetting) -> SettingSource {
        sources[setting.key] ?? .builtIn
    }

    /// The setting as errors name it, by where it was given: `maxSessions (--max-sessions)`,
    /// `FLOWD_MAX_SESSIONS (maxSessions)`, `/etc/flowbus/flowd.yaml:12: 'maxSessions'`.
    public func naming(_ setting: DaemonSetting) -> String {
        switch source(of: setting) {
        case .builtIn, .commandLine: setting.description
        case .environment(let variable): "\(variable) (\(setting.key))"
        case .file(let path, let line): "\(path):\(line): '\(setting.key)'"
        }
    }

    /// The whole number given for `setting`.
    public func number(_ setting: DaemonSetting) -> Int? {
        if case .number(let number) = values[setting.key] { number } else { nil }
    }

    /// The text given for `setting`.
    public func text(_ setting: DaemonSetting) -> String? {
        if case .text(let text) = values[setting.key] { text } else { nil }
    }

    /// The texts given for `setting`.
    public func texts(_ setting: DaemonSetting) -> [String]? {
        switch values[setting.key] {
        case .texts(let texts): texts
        case .text(let text): [text]
        default: nil
        }
    }

    /// The truth given for `setting`.
    public func toggle(_ setting: DaemonSetting) -> Bool? {
        if case .toggle(let flag) = values[setting.key] { flag } else { nil }
    }

    /// The duration given for `setting`.
    public func duration(_ setting: DaemonSetting) -> Duration? {
        if case .duration(let duration) = values[setting.key] { duration } else { nil }
    }

    /// The authorized clients given.
    public var authorizations: [ClientAuthorization]? {
        if case .authorizations(let clients) = values[DaemonSetting.authorizedKeys.key] { clients } else { nil }
    }
}

extension SettingValue {
    /// The value as `flowd config` and the log show it: a secret never, a list of clients by id.
    public func shown(for setting: DaemonSetting) -> String {
        if setting.kind == .secret {
            return "<secret>"
        }
        switch self {
        case .number(let number): return "\(number)"
        case .text(let text): return text
        case .texts(let texts): return texts.joined(separator: ", ")
        case .toggle(let flag): return "\(flag)"
        case .duration(let duration): return DurationText.format(duration)
        case .authorizations(let clients):
            return clients.map { client in
                client.id + (client.grant.map { " (\($0))" } ?? "")
            }.joined(separator: ", ")
        }
    }
}
