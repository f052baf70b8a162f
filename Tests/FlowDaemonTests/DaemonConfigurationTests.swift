import FlowBusTesting
import FlowDaemon
import FlowStore
import Foundation
import Testing
import ZeroMQ

/// How flowd's settings come together: built-in defaults, then the file, then the environment, then flags.
@Suite struct DaemonConfigurationTests {
    private let environment = ["XDG_RUNTIME_DIR": "/run/user/7"]

    /// Settings given as flags.
    private func flags(_ values: [(DaemonSetting, SettingValue)]) -> DaemonSettings {
        var settings = DaemonSettings()
        for (setting, value) in values {
            settings.set(setting, value)
        }
        return settings
    }

    private func configuration(_ values: [(DaemonSetting, SettingValue)]) throws -> DaemonConfiguration {
        try DaemonConfiguration(flags(values), environment: environment)
    }

    /// A configuration file with `text`, removed when the scratch directory goes.
    private func file(_ text: String, in scratch: ScratchDirectory) throws -> String {
        let path = scratch.path + "/flowd.yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func withNothingGivenFlowdUsesItsDefaults() throws {
        let configuration = try configuration([])
        #expect(configuration.controlEndpoints == ["ipc:///run/user/7/flowbus/control", "tcp://127.0.0.1:5860"])
        #expect(configuration.eventsEndpoints == ["ipc:///run/user/7/flowbus/events", "tcp://127.0.0.1:5861"])
        // The tests run in the repository: its demo flows are the first default place.
        #expect(configuration.flowsFile == DaemonConfiguration.defaultFlowsFiles[0])
        #expect(!configuration.flowsFileGiven)
        #expect(configuration.heartbeatInterval == .seconds(1))
        #expect(configuration.inspectionBatchDelay == .milliseconds(5))
        #expect(configuration.curve == nil)
        #expect(configuration.logLevel == .info)
        #expect(
            try DaemonConfiguration(DaemonSettings(), environment: [:]).controlEndpoints[0].hasPrefix(
                "ipc:///tmp/flowbus-"
            )
        )
    }

    /// Each setting is taken from the first source that gives it: flags, then FLOWD_* variables, then the file;
    /// and each knows where it came from.
    @Test func flagsWinOverTheEnvironmentWhichWinsOverTheFile() async throws {
        let scratch = ScratchDirectory("precedence")
        let path = try file(
            """
            flows: /etc/flowbus/flows.yaml
            heartbeatInterval: 200
            guardTimeout: 700
            tcp: false
            inspectionDelay: 20
            peerMessageRate: 0
            maxSessions: 10
            """,
            in: scratch
        )
        let sources = SettingSources(
            commandLine: flags([(.heartbeatInterval, .number(300)), (.inspectionDelay, .number(0))]),
            environment: environment.merging([
                "FLOWD_GUARD_TIMEOUT": "900", "FLOWD_HEARTBEAT_INTERVAL": "400", "FLOWD_LOG_LEVEL": "debug",
                // Empty: as if unset (the file's value holds).
                "FLOWD_MAX_SESSIONS": "",
            ]) { $1 },
            file: path
        )
        let settings = try await sources.read()
        let configuration = try DaemonConfiguration(settings, environment: environment)
        #expect(configuration.heartbeatInterval == .milliseconds(300))
        #expect(settings.source(of: .heartbeatInterval) == .commandLine(flag: "--heartbeat-interval"))
        #expect(configuration.engine.guardTimeout == .milliseconds(900))
        #expect(settings.source(of: .guardTimeout) == .environment(variable: "FLOWD_GUARD_TIMEOUT"))
        #expect(configuration.logLevel == .debug)
        #expect(configuration.maxSessions == 10)
        #expect(settings.source(of: .maxSessions) == .file(path: path, line: 7))
        #expect(configuration.inspectionBatchDelay == .zero)
        #expect(configuration.peerMessageRate == 0)
        #expect(configuration.flowsFile == "/etc/flowbus/flows.yaml")
        #expect(configuration.controlEndpoints == ["ipc:///run/user/7/flowbus/control"])
        #expect(settings.source(of: .sendQueueLimit) == .builtIn)
    }

    /// Every setting can be given as an environment variable, named from its key.
    @Test func everySettingHasAnEnvironmentVariable() async throws {
        let (secret, client) = try (CurveKeyPair.generate().secretKey.z85, CurveKeyPair.generate().publicKey.z85)
        let scratch = ScratchDirectory("environment")
        let valid: [DaemonSetting: String] = [
            .flows: "/srv/flows.yaml", .control: "ipc:///run/a/control,tcp://127.0.0.1:7000",
            .events: "ipc:///run/a/events", .tcp: "false", .heartbeatInterval: "500", .heartbeatTimeout: "4000",
            .maxMessageSize: "2048", .guardTimeout: "100", .deepLinkWait: "100", .peerMessageRate: "0",
            .peerByteRate: "0", .maxSessions: "5", .sessionsPerPeerPerMinute: "5", .maxPresentables: "20",
            .maxSessionDataBytes: "2048", .maxSteppersPerSession: "5", .sendQueueLimit: "20", .ipcMode: "0660",
            .ipcGroup: "\(getgid())", .inspectionDelay: "0", .curveSecretKey: secret,
            .curveSecretKeyFile: "", .authorizedKeys: "kiosk-7/app=\(client):kiosk-7:stepper",
            .stateDir: scratch.path, .durability: "fsync", .idleSessionExpiry: "12h", .storeRetryWindow: "2m",
            .snapshotEvery: "50",
            .snapshotInterval: "5m", .metrics: "127.0.0.1:9862", .logFormat: "json", .logLevel: "warning",
            .websocket: "127.0.0.1:5862", .websocketOrigins: "https://kiosk.example",
            .websocketTokens: "kiosk-7/app=abcdefghijklmnopqrstuvwxyz:kiosk-7:stepper", .websocketTokensFile: "",
            .websocketMaxConnections: "8",
        ]
        // (The fleet's settings replace the state directory: they are tried below.)
        let fleet: Set<DaemonSetting> = [.store, .instance, .lease, .advertiseControl, .advertiseEvents]
        #expect(Set(valid.keys) == Set(DaemonSetting.all).subtracting(fleet))
        // (The key file is tried below: with the key itself, it would be refused.)
        // (So is the tokens file.)
        let files: Set<DaemonSetting> = [.curveSecretKeyFile, .websocketTokensFile]
        let variables = valid.filter { !files.contains($0.key) }.reduce(into: [String: String]()) {
            $0[$1.key.environmentVariable] = $1.value
        }
        let settings = try await SettingSources(environment: variables).read()
        for setting in DaemonSetting.all where !files.contains(setting) && !fleet.contains(setting) {
            #expect(
                settings.source(of: setting) == .environment(variable: setting.environmentVariable),
                "\(setting.key)"
            )
        }
        let configuration = try DaemonConfiguration(settings, environment: variables)
        #expect(configuration.controlEndpoints == ["ipc:///run/a/control", "tcp://127.0.0.1:7000"])
        #expect(configuration.maxSessions == 5)
        #expect(configuration.durability == .fsync)
        #expect(configuration.idleSessionExpiry == .seconds(12 * 3600))
        #expect(configuration.storeRetryWindow == .seconds(120))
        #expect(configuration.logFormat == .json && configuration.logLevel == .warning)
        #expect(configuration.curve?.authorizedKeys == ["kiosk-7/app": client])
        #expect(configuration.curve?.grants["kiosk-7/app"] == ClientGrant(sessions: ["kiosk-7"], roles: [.stepper]))
        #expect(configuration.stateDirectory == scratch.path)
        #expect(configuration.webSocket?.address.port == 5862 && configuration.webSocket?.maxConnections == 8)
        #expect(configuration.webSocket?.origins == ["https://kiosk.example"])
        #expect(configuration.webSocket?.tokens.map(\.id) == ["kiosk-7/app"])
        // The key file, from the environment too.
        let keyFile = scratch.path + "/curve.key"
        try secret.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let fromFile = try await SettingSources(environment: ["FLOWD_CURVE_SECRET_KEY_FILE": keyFile]).read()
        #expect(try DaemonConfiguration(fromFile, environment: [:]).curve?.secretKey == secret)
        // The tokens file, from the environment too.
        let tokensFile = scratch.path + "/tokens"
        try "wall=abcdefghijklmnopqrstuvwxyz\n".write(toFile: tokensFile, atomically: true, encoding: .utf8)
        let tokens = try await SettingSources(
            environment: ["FLOWD_WEBSOCKET": "127.0.0.1:1", "FLOWD_WEBSOCKET_TOKENS_FILE": tokensFile]
        ).read()
        #expect(try DaemonConfiguration(tokens, environment: [:]).webSocket?.tokens.map(\.id) == ["wall"])
    }

    /// The fleet's settings, from the environment: the database replaces the state directory.
    @Test func theFleetsSettingsComeFromTheEnvironmentToo() async throws {
        let variables = [
            "FLOWD_STORE": "postgres://flowd:s3cret@db/fleet", "FLOWD_INSTANCE": "flowd-1", "FLOWD_LEASE": "3s",
            "FLOWD_ADVERTISE_CONTROL": "tcp://flowd-1.flowd:5860", "FLOWD_ADVERTISE_EVENTS": "tcp://flowd-1.flowd:5861",
        ]
        let settings = try await SettingSources(environment: variables).read()
        for setting in [DaemonSetting.store, .instance, .lease, .advertiseControl, .advertiseEvents] {
            #expect(settings.source(of: setting) == .environment(variable: setting.environmentVariable))
        }
        let configuration = try DaemonConfiguration(settings, environment: variables)
        #expect(configuration.stateDirectory == nil && configuration.durable)
        #expect(
            configuration.fleet
                == FleetConfiguration(
                    storeURL: "postgres://flowd:s3cret@db/fleet",
                    instance: "flowd-1",
                    lease: .seconds(3),
                    advertisedControl: ["tcp://flowd-1.flowd:5860"],
                    advertisedEvents: ["tcp://flowd-1.flowd:5861"]
                )
        )
        #expect(configuration.fleet?.redactedStoreURL == "postgres://flowd:***@db/fleet")
        // By default: the instance is the host ($HOSTNAME in a pod), the lease 5 s, the tcp endpoints advertised
        // with the host's name for a wildcard.
        let defaults = try DaemonConfiguration(
            try await SettingSources(
                environment: [
                    "FLOWD_STORE": "postgresql:///fleet?host=/run/postgresql", "HOSTNAME": "flowd-2",
                    "FLOWD_CONTROL": "tcp://*:5860", "FLOWD_EVENTS": "tcp://*:5861",
                ]
            ).read(),
            environment: ["HOSTNAME": "flowd-2"]
        )
        #expect(defaults.fleet?.instance == "flowd-2")
        #expect(defaults.fleet?.lease == .seconds(5))
        #expect(defaults.fleet?.advertisedControl.count == 1)
        #expect(defaults.fleet?.advertisedControl.first?.hasSuffix(":5860") == true)
        #expect(defaults.fleet?.advertisedControl.first?.contains("*") == false)
        // Ports chosen as flowd binds, with what to advertise given.
        let chosen = [
            "FLOWD_STORE": "postgres://db/f", "FLOWD_CONTROL": "tcp://*:*", "FLOWD_EVENTS": "tcp://*:*",
            "FLOWD_ADVERTISE_CONTROL": "tcp://flowd-3:5860", "FLOWD_ADVERTISE_EVENTS": "tcp://flowd-3:5861",
        ]
        let advertised = try DaemonConfiguration(
            try await SettingSources(environment: chosen).read(),
            environment: chosen
        )
        #expect(advertised.fleet?.advertisedControl == ["tcp://flowd-3:5860"])
    }

    /// Tried: a store that is neither sqlite nor a PostgreSQL URL, a store with a state directory, fleet settings
    /// without a store, a lease too short, advertised endpoints that do not pair up, endpoints whose port is chosen
    /// as flowd binds (`*`) with nothing else to advertise, such a port advertised, the durability `off` (an
    /// instance paused past its lease would acknowledge what its successor never gets), and a store retry window
    /// out of range.
    @Test func fleetSettingsThatDoNotFitAreRefused() async throws {
        let cases: [([String: String], String)] = [
            (
                ["FLOWD_STORE": "postgres://db/f", "FLOWD_DURABILITY": "off"],
                "off cannot be used with a fleet's store: an instance paused past its lease would acknowledge steps"
            ),
            (["FLOWD_STORE": "postgres://db/f", "FLOWD_STORE_RETRY_WINDOW": "0"], "must be from 1000 to"),
            (["FLOWD_STORE": "mysql://db"], "is sqlite (the state directory, the default) or a PostgreSQL URL"),
            (["FLOWD_STORE": "postgres://db/f", "FLOWD_STATE_DIR": "/tmp/x"], "contradict each other"),
            (["FLOWD_INSTANCE": "a"], "is for an instance of a fleet"),
            (["FLOWD_STORE": "postgres://db/f", "FLOWD_LEASE": "100ms"], "must be at least 300ms"),
            (
                [
                    "FLOWD_STORE": "postgres://db/f", "FLOWD_ADVERTISE_CONTROL": "tcp://a:1,tcp://b:1",
                    "FLOWD_ADVERTISE_EVENTS": "tcp://a:2",
                ], "pair up"
            ),
            (
                [
                    "FLOWD_STORE": "postgres://db/f", "FLOWD_CONTROL": "tcp://127.0.0.1:*",
                    "FLOWD_EVENTS": "tcp://127.0.0.1:5861",
                ],
                "tcp://127.0.0.1:* is where this instance's clients would be sent by the others, but its port is chosen as flowd binds: give the port, or what to advertise with"
            ),
            (
                [
                    "FLOWD_STORE": "postgres://db/f", "FLOWD_CONTROL": "tcp://*:*", "FLOWD_EVENTS": "tcp://*:*",
                    "FLOWD_ADVERTISE_CONTROL": "tcp://a:*", "FLOWD_ADVERTISE_EVENTS": "tcp://a:2",
                ], "tcp://a:* is where"
            ),
        ]
        for (variables, expected) in cases {
            let settings = try await SettingSources(environment: variables).read()
            #expect(throws: ConfigurationError.self, "\(variables)") {
                try DaemonConfiguration(settings, environment: variables)
            }
            do {
                _ = try DaemonConfiguration(settings, environment: variables)
            } catch {
                #expect("\(error)".contains(expected), "\(error)")
            }
        }
    }

    /// Tried: a number that is not one, a negative count, an unknown word, a bad duration, an endpoint without a
    /// scheme, one without a port, an empty list, an authorized entry without a key, a truth that is not one.
    @Test func badEnvironmentVariablesAreRefusedByName() async throws {
        let cases: [(String, String, String)] = [
            (
                "FLOWD_CONTROL", "tcp://127.0.0.1",
                "FLOWD_CONTROL (control) must be a tcp endpoint with its host and port"
            ),
            ("FLOWD_EVENTS", ",", "FLOWD_EVENTS (events) must be endpoints written tcp://HOST:PORT or ipc:///PATH"),
            (
                "FLOWD_MAX_SESSIONS", "many",
                "FLOWD_MAX_SESSIONS (maxSessions) must be a whole number of 1 or more, not 'many'"
            ),
            (
                "FLOWD_SNAPSHOT_EVERY", "-2",
                "FLOWD_SNAPSHOT_EVERY (snapshotEvery) must be a whole number of 1 or more, not '-2'"
            ),
            (
                "FLOWD_DURABILITY", "sometimes",
                "FLOWD_DURABILITY (durability) must be os, fsync or off, not 'sometimes'"
            ),
            ("FLOWD_IDLE_SESSION_EXPIRY", "soon", "FLOWD_IDLE_SESSION_EXPIRY (idleSessionExpiry) must be a duration"),
            ("FLOWD_CONTROL", "localhost:5860", "FLOWD_CONTROL (control) must be endpoints written tcp://HOST:PORT"),
            ("FLOWD_AUTHORIZED_KEYS", "ops", "FLOWD_AUTHORIZED_KEYS: an authorized client is ID=PUBLIC_KEY"),
            ("FLOWD_TCP", "maybe", "FLOWD_TCP (tcp) must be true or false, not 'maybe'"),
        ]
        for (variable, value, message) in cases {
            let error = await #expect(throws: ConfigurationError.self, "\(variable)") {
                _ = try await SettingSources(environment: [variable: value]).read()
            }
            #expect(error?.description.contains(message) == true, "\(error?.description ?? "nothing thrown")")
        }
    }

    /// A `FLOWD_` variable that names no setting is warned about, not refused (the environment is not always flowd's
    /// own); those Kubernetes gives every pod for a Service named flowd are left alone. Tried: a misspelt one, one
    /// in lower case, FLOWD_SERVICE_HOST, FLOWD_PORT, FLOWD_PORT_5860_TCP.
    @Test func unknownVariablesAreWarnedAboutAndKubernetesOnesLeftAlone() async throws {
        let settings = try await SettingSources(environment: [
            "FLOWD_MAX_SESION": "5", "flowd_max_sessions": "5", "FLOWD_SERVICE_HOST": "10.0.0.1",
            "FLOWD_PORT": "tcp://10.0.0.1:5860", "FLOWD_PORT_5860_TCP": "tcp://10.0.0.1:5860",
            "FLOWD_CONFIG": "/etc/flowbus/flowd.yaml",
        ]).read()
        #expect(settings.warnings.count == 1)
        let warning = settings.warnings.first ?? ""
        #expect(
            warning.hasPrefix("ignored FLOWD_MAX_SESION, flowd_max_sessions: not among flowd's environment variables")
        )
        #expect(!warning.contains("SERVICE") && !warning.contains("FLOWD_PORT") && !warning.contains("FLOWD_CONFIG"))
        #expect(settings[.maxSessions] == nil)
    }

    /// Values as operators write them: words in any case, numbers quoted (a ConfigMap's), a whitespace-only list
    /// of keys as none; and the sources named as given (`--no-tcp`, `--ephemeral`).
    @Test func valuesAreReadAsOperatorsWriteThem() async throws {
        let scratch = ScratchDirectory("values")
        let path = try file("maxSessions: \"12\"\nlogFormat: JSON\n", in: scratch)
        let settings = try await SettingSources(
            environment: [
                "FLOWD_LOG_LEVEL": "DEBUG", "FLOWD_AUTHORIZED_KEYS": "  ", "FLOWD_MAX_STEPPERS_PER_SESSION": "",
            ],
            file: path
        ).read()
        let configuration = try DaemonConfiguration(settings, environment: environment)
        #expect(configuration.maxSessions == 12)
        #expect(configuration.logFormat == .json && configuration.logLevel == .debug)
        #expect(configuration.curve == nil && settings[.authorizedKeys] == nil)
        #expect(settings[.maxSteppersPerSession] == nil)
        var flags = DaemonSettings()
        flags.set(.tcp, .toggle(false))
        flags.set(.stateDir, .text("none"), from: .commandLine(flag: "--ephemeral"))
        let given = try await SettingSources(commandLine: flags, environment: environment).read()
        #expect(given.source(of: .tcp) == .commandLine(flag: "--no-tcp"))
        #expect(given.source(of: .stateDir) == .commandLine(flag: "--ephemeral"))
    }

    /// Tried: a secret key in a line YAML cannot read (an unquoted `*`), a key given twice, an empty file, a
    /// comments-only file: the secret is never quoted, and an empty file gives nothing.
    @Test func aFileThatIsNotYAMLNeverQuotesItsSecret() async throws {
        let scratch = ScratchDirectory("secret")
        let secret = try CurveKeyPair.generate().secretKey.z85
        let path = try file("curveSecretKey: *\(secret.dropFirst())\n", in: scratch)
        let error = await #expect(throws: ConfigurationError.self) {
            _ = try await SettingSources(environment: environment, file: path).read()
        }
        #expect(error?.description.hasPrefix("\(path): not valid YAML at line 1") == true)
        #expect(error?.description.contains(String(secret.dropFirst().prefix(8))) == false)
        _ = try file("curveSecretKey: \"\(secret)\"\ncurveSecretKey: \"\(secret)\"\n", in: scratch)
        let twice = await #expect(throws: ConfigurationError.self) {
            _ = try await SettingSources(environment: environment, file: path).read()
        }
        #expect(twice?.description.hasPrefix("\(path): not valid YAML at line ") == true)
        #expect(twice?.description.hasSuffix(": 'curveSecretKey' given twice") == true)
        #expect(twice?.description.contains(String(secret.prefix(8))) == false)
        for empty in ["", "# every key is optional\n"] {
            _ = try file(empty, in: scratch)
            #expect(try await SettingSources(environment: environment, file: path).read() == DaemonSettings())
        }
    }

    /// Tried: endpoints given twice, durability with no state directory from the file, flowd's own public key
    /// authorized as a client's, `flowd keygen`'s whole output as the key file.
    @Test func settingsThatContradictEachOtherFromAnySourceAreRefused() async throws {
        let scratch = ScratchDirectory("contradictions")
        let twice = #expect(throws: ConfigurationError.self) {
            try configuration([(.control, .texts(["ipc:///run/a"])), (.events, .texts(["ipc:///run/a"]))])
        }
        #expect(twice?.description.contains("ipc:///run/a is given twice") == true)
        let path = try file("stateDir: none\ndurability: fsync\n", in: scratch)
        let settings = try await SettingSources(environment: environment, file: path).read()
        let durability = #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration(settings, environment: environment)
        }
        #expect(
            durability?.description
                == "\(path):2: 'durability' means nothing with \(path):1: 'stateDir' none: nothing is written"
        )
        let pair = try CurveKeyPair.generate()
        let own = #expect(throws: ConfigurationError.self) {
            try configuration([
                (.curveSecretKey, .text(pair.secretKey.z85)),
                (.authorizedKeys, .authorizations([ClientAuthorization(id: "me", key: pair.publicKey.z85)])),
            ])
        }
        #expect(own?.description.contains("gives 'me' flowd's own public key") == true)
        let keyFile = scratch.path + "/curve.key"
        try "public: \(pair.publicKey.z85)\nsecret: \(pair.secretKey.z85)\n".write(
            toFile: keyFile,
            atomically: true,
            encoding: .utf8
        )
        #expect(try configuration([(.curveSecretKeyFile, .text(keyFile))]).curve?.secretKey == pair.secretKey.z85)
    }

    @Test func sessionsAreKeptInTheUsersStateDirectoryUnlessToldOtherwise() throws {
        let defaults = try DaemonConfiguration(DaemonSettings(), environment: ["XDG_STATE_HOME": "/home/k/.state"])
        #expect(defaults.stateDirectory == "/home/k/.state/flowbus")
        #expect(defaults.durability == .os)
        #expect(defaults.idleSessionExpiry == .seconds(7 * 86_400))
        #expect(defaults.storeRetryWindow == .seconds(60))
        let home = try DaemonConfiguration(DaemonSettings(), environment: ["HOME": "/home/k"])
        #expect(home.stateDirectory == "/home/k/.local/state/flowbus")
        let ephemeral = try configuration([(.stateDir, .text("none")), (.idleSessionExpiry, .duration(.zero))])
        #expect(ephemeral.stateDirectory == nil)
        #expect(!ephemeral.durable)
        #expect(ephemeral.idleSessionExpiry == nil)
        #expect(try configuration([(.durability, .text("fsync"))]).durability == .fsync)
    }

    /// A state directory in a file is relative to the file; `~/` is the home directory; absolute paths stay.
    @Test func aStateDirectoryIsResolvedAsItsReaderExpects() async throws {
        let environment = ["HOME": "/home/k"]
        #expect(
            StateDirectory.resolve("state", relativeTo: "/etc/flowbus", environment: environment)
                == "/etc/flowbus/state"
        )
        #expect(
            StateDirectory.resolve("../var/s", relativeTo: "/etc/flowbus", environment: environment) == "/etc/var/s"
        )
        #expect(StateDirectory.resolve("~/st", relativeTo: "/etc", environment: environment) == "/home/k/st")
        #expect(
            StateDirectory.resolve("/var/lib/flowbus", relativeTo: "/etc", environment: environment)
                == "/var/lib/flowbus"
        )
        #expect(StateDirectory.resolve("none", relativeTo: "/etc", environment: environment) == "none")
        let scratch = ScratchDirectory("config")
        let path = try file("stateDir: kept\n", in: scratch)
        let settings = try await SettingSources(environment: environment, file: path, workingDirectory: "/").read()
        #expect(settings.text(.stateDir) == scratch.path + "/kept")
        let fromFlag = try await SettingSources(
            commandLine: flags([(.stateDir, .text("kept"))]),
            environment: environment,
            workingDirectory: "/srv"
        ).read()
        #expect(fromFlag.text(.stateDir) == "/srv/kept")
        _ = try file("stateDir: ''\n", in: scratch)
        await #expect(throws: ConfigurationError.self) {
            _ = try await SettingSources(environment: environment, file: path).read()
        }
    }

    /// Durations as written in files and flags. Bad ones tried: negative, fractional, unknown units, empty.
    @Test func durationsAreReadAsPeopleWriteThem() {
        #expect(DurationText.parse("7d") == .seconds(7 * 86_400))
        #expect(DurationText.parse("12h") == .seconds(12 * 3_600))
        #expect(DurationText.parse("30m") == .seconds(1_800))
        #expect(DurationText.parse("45s") == .seconds(45))
        #expect(DurationText.parse("250ms") == .milliseconds(250))
        #expect(DurationText.parse("90") == .seconds(90))
        #expect(DurationText.parse("0") == .zero)
        for bad in ["-1d", "1.5h", "3w", "", "d", "ms", "99999999999999999999d"] {
            #expect(DurationText.parse(bad) == nil, "\(bad) was taken")
        }
        for duration: Duration in [.seconds(7 * 86_400), .seconds(90), .milliseconds(250), .zero, .seconds(3600)] {
            #expect(DurationText.parse(DurationText.format(duration)) == duration)
        }
    }

    /// Tried: an unknown key, a mapping where one value goes, then (once the file's shape is right) a bad word, a
    /// bad duration, a zero count and a number that is not one: every problem named with its line.
    @Test func aFileWithBadSettingsIsRefusedNamingEachLine() async throws {
        let scratch = ScratchDirectory("badfile")
        let path = try file("colour: blue\nmetrics: { port: 1 }\n", in: scratch)
        let shape = await #expect(throws: ConfigurationError.self) {
            _ = try await SettingSources(environment: environment, file: path).read()
        }
        let shapeLines = shape?.description.split(separator: "\n").map(String.init) ?? []
        #expect(shapeLines.first?.hasPrefix("\(path):1:1: unknown key 'colour'; known keys: flows, control") == true)
        #expect(shapeLines.last == "\(path):2:1: 'metrics' takes one value, not a list or a mapping")
        _ = try file(
            "durability: sometimes\nidleSessionExpiry: soon\nsnapshotEvery: 0\nheartbeatInterval: often\n",
            in: scratch
        )
        let error = await #expect(throws: ConfigurationError.self) {
            _ = try await SettingSources(environment: environment, file: path).read()
        }
        let lines = Set(error?.description.split(separator: "\n").map(String.init) ?? [])
        #expect(
            lines == [
                "\(path):1: 'durability' must be os, fsync or off, not 'sometimes'",
                "\(path):2: 'idleSessionExpiry' must be a duration such as 7d, 12h, 30m or 45s, not 'soon'",
                "\(path):3: 'snapshotEvery' must be a whole number of 1 or more, not '0'",
                "\(path):4: 'heartbeatInterval' must be a whole number of 1 or more, not 'often'",
            ]
        )
        // A file that cannot be read, or is not a mapping.
        await #expect(throws: ConfigurationError.self) {
            _ = try await SettingSources(environment: environment, file: scratch.path + "/none.yaml").read()
        }
        _ = try file("- a\n- b\n", in: scratch)
        await #expect(throws: ConfigurationError.self) {
            _ = try await SettingSources(environment: environment, file: path).read()
        }
    }

    @Test func theShippedConfigurationFileSetsEveryKey() async throws {
        let path = repositoryRoot.appendingPathComponent("deploy/flowd.yaml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for key in DaemonSetting.all.map(\.key) {
            #expect(text.contains("\n\(key):") || text.contains("# \(key):"), "deploy/flowd.yaml does not show \(key)")
        }
        let settings = try await SettingSources(environment: environment, file: path).read()
        let file = try DaemonConfiguration(settings, environment: environment)
        #expect(file.inspectionBatchDelay == .milliseconds(5))
        #expect(file.peerMessageRate == 50_000)
        // ipc only: tcp, even on loopback, would let every local user in past the socket's group.
        #expect(file.controlEndpoints == ["ipc:///run/flowbus/control"])
        #expect(file.eventsEndpoints == ["ipc:///run/flowbus/events"])
        #expect(file.ipcMode == 0o660)
        #expect(file.stateDirectory == "/var/lib/flowbus")
        // The shipped values are the built-in defaults.
        var defaults = try configuration([])
        defaults.controlEndpoints = file.controlEndpoints
        defaults.eventsEndpoints = file.eventsEndpoints
        defaults.flowsFile = file.flowsFile
        defaults.ipcMode = file.ipcMode
        defaults.stateDirectory = file.stateDirectory
        defaults.flowsFileGiven = true
        #expect(file == defaults)
    }

    @Test func theMetricsAddressIsReadAsOperatorsWriteIt() throws {
        // Tried: no port, a port beyond 65535, a host name other than localhost, an empty value.
        let read = { (text: String) throws -> MetricsAddress? in
            try self.configuration([(.metrics, .text(text))]).metricsAddress
        }
        #expect(try configuration([]).metricsAddress == nil)
        #expect(try read("127.0.0.1:9862") == MetricsAddress(host: "127.0.0.1", port: 9862))
        #expect(try read("localhost:9862") == MetricsAddress(host: "127.0.0.1", port: 9862))
        #expect(try read(":9862") == MetricsAddress(host: "0.0.0.0", port: 9862))
        #expect(try read("[::1]:0") == MetricsAddress(host: "::1", port: 0))
        #expect(try read("[::1]:0")?.description == "[::1]:0")
        for bad in ["9862", "127.0.0.1:65536", "metrics.example:9862", ""] {
            #expect(throws: ConfigurationError.self, "\(bad) was taken") { _ = try read(bad) }
        }
    }

    @Test func settingsThatDoNotFitTogetherAreRefused() {
        // Tried: control endpoints without events ones, a heartbeat timeout not longer than the interval.
        #expect(throws: ConfigurationError.self) {
            try configuration([(.control, .texts(["tcp://127.0.0.1:1"]))])
        }
        #expect(throws: ConfigurationError.self) {
            try configuration([(.heartbeatInterval, .number(2000)), (.heartbeatTimeout, .number(2000))])
        }
    }

    @Test func aSettingOutOfItsRangeIsRefusedNamingItsKeyFlagAndSource() async throws {
        // Tried: a zero message size, one so large that adding to it overflows, no sessions, a heartbeat timeout
        // of 300 years, a send queue of 1, 2 presentables, no session data, no senders.
        let cases: [(String, DaemonSetting, Int)] = [
            ("maxMessageSize (--max-message-size) must be from 1024 to 268435456, not 1", .maxMessageSize, 1),
            ("maxMessageSize (--max-message-size)", .maxMessageSize, Int.max),
            ("maxSessions (--max-sessions)", .maxSessions, 0),
            ("heartbeatTimeout (--heartbeat-timeout)", .heartbeatTimeout, Int(Int64.max / 1_000_000)),
            ("sendQueueLimit (--send-queue-limit)", .sendQueueLimit, 1),
            ("maxPresentables (--max-presentables) must be from 10", .maxPresentables, 2),
            ("maxSessionDataBytes (--max-session-data-bytes)", .maxSessionDataBytes, 0),
            ("maxSteppersPerSession (--max-steppers-per-session)", .maxSteppersPerSession, 0),
        ]
        for (message, setting, value) in cases {
            let error = #expect(throws: ConfigurationError.self) { try configuration([(setting, .number(value))]) }
            #expect(error?.description.contains(message) == true, "\(error?.description ?? "nothing thrown")")
        }
        // Given elsewhere than as a flag, the source is named too.
        let settings = try await SettingSources(environment: ["FLOWD_SEND_QUEUE_LIMIT": "3"]).read()
        let error = #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration(settings, environment: environment)
        }
        #expect(error?.description == "FLOWD_SEND_QUEUE_LIMIT (sendQueueLimit) must be from 10 to 1000000, not 3")
    }

    @Test func curveKeysThatAreNotKeysAreRefusedAtOnce() throws {
        // Tried: a secret key that is not Z85, an authorized key of the wrong length, keys without a secret key,
        // one id twice.
        #expect(throws: ConfigurationError.self) { try configuration([(.curveSecretKey, .text("secret"))]) }
        let secret = try CurveKeyPair.generate().secretKey.z85
        let client = try CurveKeyPair.generate().publicKey.z85
        let error = #expect(throws: ConfigurationError.self) {
            try configuration([
                (.curveSecretKey, .text(secret)),
                (.authorizedKeys, .authorizations([ClientAuthorization(id: "kiosk/app", key: "short")])),
            ])
        }
        #expect(error?.description.contains("'kiosk/app' is not a CURVE public key") == true)
        #expect(throws: ConfigurationError.self) {
            try configuration([(.authorizedKeys, .authorizations([ClientAuthorization(id: "kiosk/app", key: client)]))])
        }
        let twice = #expect(throws: ConfigurationError.self) {
            try configuration([
                (.curveSecretKey, .text(secret)),
                (
                    .authorizedKeys,
                    .authorizations([
                        ClientAuthorization(id: "a", key: client), ClientAuthorization(id: "a", key: client),
                    ])
                ),
            ])
        }
        #expect(twice?.description.contains("names 'a' twice") == true)
    }

    @Test func aConfigurationFileGrantsKeysSessionsAndRoles() async throws {
        let (secret, app, ops) = try (
            CurveKeyPair.generate().secretKey.z85, CurveKeyPair.generate().publicKey.z85,
            CurveKeyPair.generate().publicKey.z85
        )
        let scratch = ScratchDirectory("grants")
        let path = try file(
            """
            curveSecretKey: "\(secret)"
            authorizedKeys:
              kiosk-7/app: { key: "\(app)", sessions: [kiosk-7], roles: [stepper] }
              ops: "\(ops)"
            """,
            in: scratch
        )
        let settings = try await SettingSources(environment: environment, file: path).read()
        let configuration = try DaemonConfiguration(settings, environment: environment)
        #expect(configuration.curve?.authorizedKeys == ["kiosk-7/app": app, "ops": ops])
        #expect(configuration.curve?.grants == ["kiosk-7/app": ClientGrant(sessions: ["kiosk-7"], roles: [.stepper])])
        // A list of clients is taken whole from the first source that gives one, never merged.
        let fromFlags = try await SettingSources(
            commandLine: flags([(.authorizedKeys, .authorizations([ClientAuthorization(id: "ops", key: ops)]))]),
            environment: environment,
            file: path
        ).read()
        #expect(try DaemonConfiguration(fromFlags, environment: environment).curve?.authorizedKeys == ["ops": ops])
        // Tried: a grant with an unknown role, a client with neither key nor grant, a misspelt field (which would
        // otherwise leave the key granted everything).
        _ = try file(
            """
            curveSecretKey: "\(secret)"
            authorizedKeys:
              kiosk-7/app: { key: "\(app)", roles: [admin] }
              ops: [1, 2]
              other: { key: "\(ops)", session: [kiosk-7] }
            """,
            in: scratch
        )
        let error = await #expect(throws: ConfigurationError.self) {
            _ = try await SettingSources(environment: environment, file: path).read()
        }
        #expect(error?.description.contains("'admin' is not a role") == true)
        #expect(error?.description.contains("'ops' needs a key") == true)
        #expect(
            error?.description.contains("the grant of 'other' has 'session': a grant has key, sessions and roles")
                == true
        )
    }
}
