import Configuration
import FlowStore
import Foundation
import Synchronization
import SystemPackage

/// Where flowd's settings come from, in the order they win: flags, then `FLOWD_*` environment variables, then the
/// configuration file. swift-configuration reads and merges them (its in-memory, environment and YAML file
/// providers under one `ConfigReader`); what each value is and where it came from is recorded as it is read.
public struct SettingSources: Sendable {
    /// The settings given as flags.
    public var commandLine: DaemonSettings
    /// The process's environment.
    public var environment: [String: String]
    /// The configuration file, if one is given.
    public var file: String?
    /// Where relative paths given as flags or in the environment start.
    public var workingDirectory: String

    /// Sources with these flags, environment and file.
    public init(
        commandLine: DaemonSettings = DaemonSettings(),
        environment: [String: String],
        file: String? = nil,
        workingDirectory: String = FileManager.default.currentDirectoryPath
    ) {
        self.commandLine = commandLine
        self.environment = environment
        self.file = file
        self.workingDirectory = workingDirectory
    }

    /// The prefix of flowd's environment variables.
    public static let environmentPrefix = "FLOWD_"

    /// Reads every setting from the sources (the file again, for a reload).
    /// - Throws: ``ConfigurationError`` listing every value that cannot be read, each with where it was given.
    public func read() async throws -> DaemonSettings {
        let outline = try file.map(ConfigurationFile.init(contentsOf:))
        var problems: [String] = []
        // In ``Provider``'s order: the command line, the environment, then the file.
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "command line", values: commandLineValues()),
            EnvironmentVariablesProvider(
                // An empty variable (`Environment=FLOWD_MAX_SESSIONS=` in a drop-in) gives nothing, as if unset.
                environmentVariables: environment.filter { !$0.value.isEmpty },
                secretsSpecifier: .specific(Set(DaemonSetting.secrets.map(\.environmentVariable)))
            ).prefixKeys(with: "flowd"),
        ]
        // An empty (or comments-only) file gives nothing; swift-configuration would call it not a mapping.
        if let file, outline?.isEmpty == false {
            do {
                providers.append(
                    try await FileProvider<YAMLSnapshot>(
                        parsingOptions: .init(secretsSpecifier: .specific(Set(DaemonSetting.secrets.map(\.key)))),
                        filePath: FilePath(file)
                    )
                )
            } catch {
                throw ConfigurationError("\(file): \(error)")
            }
        }
        let recorder = LookupRecorder()
        let reader = ConfigReader(providers: providers, accessReporter: recorder)
        var settings = DaemonSettings()
        for setting in DaemonSetting.all {
            guard setting.kind != .authorizations else {
                if let (clients, source) = try authorizations(outline: outline, problems: &problems) {
                    settings.set(setting, .authorizations(clients), from: source)
                }
                continue
            }
            let lookup = read(setting, with: reader, recorder: recorder)
            if let failed = lookup.failedProvider {
                problems.append(problem(setting, at: failed, outline: outline))
                continue
            }
            guard let content = lookup.content, let index = lookup.provider else { continue }
            let source = source(of: setting, provider: index, outline: outline)
            switch value(of: setting, content, from: source, outline: outline) {
            case .success(let value): settings.set(setting, value, from: source)
            case .failure(let error): problems.append(error.description)
            }
        }
        guard problems.isEmpty else {
            throw ConfigurationError(problems.joined(separator: "\n"))
        }
        settings.warnings = unknownEnvironmentVariables()
        return settings
    }

    /// Reads `setting` as its kind asks; an endpoint list the file gives as one endpoint is read as one.
    private func read(_ setting: DaemonSetting, with reader: ConfigReader, recorder: LookupRecorder) -> Lookup {
        let key = ConfigKey([setting.key])
        switch setting.kind {
        case .count, .countOrZero:
            _ = reader.int(forKey: key)
            // A number written as text (`maxSessions: "12"`, as a ConfigMap may hold it) is read as text.
            if recorder.lookup(setting.key).failedProvider != nil {
                _ = reader.string(forKey: key)
            }
        case .toggle: _ = reader.bool(forKey: key)
        case .secret: _ = reader.string(forKey: key, isSecret: true)
        case .text, .choice, .duration: _ = reader.string(forKey: key)
        case .endpoints:
            _ = reader.stringArray(forKey: key)
            if recorder.lookup(setting.key).failedProvider == Provider.file {
                _ = reader.string(forKey: key)
            }
        case .authorizations: break
        }
        return recorder.lookup(setting.key)
    }

    /// The value `content` gives `setting`, checked against its kind.
    private func value(
        of setting: DaemonSetting,
        _ content: ConfigContent,
        from source: SettingSource,
        outline: ConfigurationFile?
    ) -> Result<SettingValue, ConfigurationError> {
        let raw: SettingValue
        switch content {
        case .int(let number): raw = .number(number)
        case .bool(let flag): raw = .toggle(flag)
        case .string(let text): raw = .text(text)
        case .stringArray(let texts): raw = .texts(texts)
        default: raw = .text("\(content)")
        }
        switch setting.value(from: raw) {
        case .failure(let problem):
            return .failure(ConfigurationError(problem.description(naming: Self.naming(setting, at: source))))
        case .success(.text(let text)) where setting == .stateDir:
            // In the file, relative to the file, as a reader of the file expects, wherever flowd is started from.
            var base = workingDirectory
            if case .file(let path, _) = source {
                base = directory(of: path)
            }
            return .success(.text(StateDirectory.resolve(text, relativeTo: base, environment: environment)))
        case .success(let value):
            return .success(value)
        }
    }

    /// The problem with a value a provider could not convert to the setting's kind.
    private func problem(_ setting: DaemonSetting, at provider: Int, outline: ConfigurationFile?) -> String {
        let source = source(of: setting, provider: provider, outline: outline)
        let given =
            switch source {
            case .environment(let variable): environment[variable] ?? ""
            case .file: outline?.written[setting.key] ?? ""
            default: ""
            }
        return SettingProblem(wanted: setting.wanted, given: given).description(
            naming: Self.naming(setting, at: source)
        )
    }

    /// A setting as a problem with its value names it: by its flag, its variable, or its file and line.
    private static func naming(_ setting: DaemonSetting, at source: SettingSource) -> String {
        switch source {
        case .builtIn, .commandLine: setting.flag
        case .environment(let variable): "\(variable) (\(setting.key))"
        case .file(let path, let line): "\(path):\(line): '\(setting.key)'"
        }
    }

    /// Where the value of `setting` found by provider `index` was given.
    private func source(of setting: DaemonSetting, provider index: Int, outline: ConfigurationFile?) -> SettingSource {
        switch index {
        case Provider.commandLine: commandLine.source(of: setting)
        case Provider.environment: .environment(variable: setting.environmentVariable)
        default: .file(path: outline?.path ?? "", line: outline?.lines[setting.key] ?? 0)
        }
    }

    /// The authorized clients, from the first source that gives them (`--authorize` entries, `FLOWD_AUTHORIZED_KEYS`
    /// entries separated by spaces, or the file's mapping): a list of clients is taken whole, never merged.
    private func authorizations(
        outline: ConfigurationFile?,
        problems: inout [String]
    ) throws -> ([ClientAuthorization], SettingSource)? {
        let setting = DaemonSetting.authorizedKeys
        if let clients = commandLine.authorizations {
            return (clients, .commandLine(flag: "--authorize"))
        }
        if let text = environment[setting.environmentVariable], !text.allSatisfy(\.isWhitespace) {
            var clients: [ClientAuthorization] = []
            for entry in text.split(whereSeparator: \.isWhitespace) {
                do {
                    clients.append(try ClientAuthorization(parsing: String(entry)))
                } catch {
                    problems.append("\(setting.environmentVariable): \(error)")
                }
            }
            return (clients, .environment(variable: setting.environmentVariable))
        }
        if let outline, let clients = outline.authorizations {
            return (clients, .file(path: outline.path, line: outline.lines[setting.key] ?? 0))
        }
        return nil
    }

    /// The flags, as swift-configuration values.
    private func commandLineValues() -> [AbsoluteConfigKey: ConfigValue] {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for setting in DaemonSetting.all {
            let content: ConfigContent? =
                switch commandLine[setting] {
                case .number(let number): .int(number)
                case .text(let text): .string(text)
                case .texts(let texts): .stringArray(texts)
                case .toggle(let flag): .bool(flag)
                case .duration(let duration): .string("\(duration.milliseconds)ms")
                case .authorizations, nil: nil
                }
            if let content {
                values[AbsoluteConfigKey([setting.key])] = ConfigValue(content, isSecret: setting.kind == .secret)
            }
        }
        return values
    }

    /// `FLOWD_*` variables that name no setting (a misspelt one, or one in lower case: names are in capitals),
    /// which would otherwise be ignored without a word: warned about, not refused, since the environment is not
    /// always flowd's own. Kubernetes gives every pod `FLOWD_SERVICE_HOST`, `FLOWD_PORT`... for a Service named
    /// flowd: those are left alone.
    private func unknownEnvironmentVariables() -> [String] {
        let known = Set(DaemonSetting.all.map(\.environmentVariable) + [Self.configurationVariable])
        let unknown = environment.keys.sorted().filter { name in
            guard name.uppercased().hasPrefix(Self.environmentPrefix), !known.contains(name) else { return false }
            let rest = name.dropFirst(Self.environmentPrefix.count)
            return !(rest.hasPrefix("SERVICE_") || rest == "PORT" || rest.hasPrefix("PORT_"))
        }
        guard !unknown.isEmpty else { return [] }
        return [
            "ignored \(unknown.map { String($0.prefix(64)) }.joined(separator: ", ")): not among flowd's environment variables (FLOWD_ and a setting's key in capitals, as FLOWD_MAX_SESSIONS; `flowd config --help` lists the settings)"
        ]
    }

    /// The variable naming the configuration file when `--config` is not given.
    public static let configurationVariable = "FLOWD_CONFIG"

    private func directory(of path: String) -> String {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: workingDirectory)).deletingLastPathComponent().path
    }
}

/// The providers of the `ConfigReader`, by their place in it: the order in which they win.
enum Provider {
    static let commandLine = 0
    static let environment = 1
    static let file = 2
}

/// What one read of a setting found: the provider that gave it (``Provider``) and its content, or the provider whose
/// value could not be converted.
struct Lookup {
    var provider: Int?
    var content: ConfigContent?
    var failedProvider: Int?
}

/// Records, per key, what the last read found in each provider (swift-configuration's access reporting).
final class LookupRecorder: AccessReporter, Sendable {
    private let lookups = Mutex<[String: Lookup]>([:])

    func report(_ event: AccessEvent) {
        var lookup = Lookup()
        for (index, result) in event.providerResults.enumerated() {
            switch result.result {
            case .failure:
                lookup.failedProvider = index
            case .success(let found):
                if let value = found.value {
                    lookup.provider = index
                    lookup.content = value.content
                }
            }
        }
        if event.conversionError != nil {
            lookup.failedProvider = lookup.provider
            lookup.provider = nil
        }
        let key = event.metadata.key.components.joined(separator: ".")
        lookups.withLock { $0[key] = lookup }
    }

    func lookup(_ key: String) -> Lookup {
        lookups.withLock { $0[key] } ?? Lookup()
    }
}
