// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "FlowBus",
    products: [
        .library(name: "ZeroMQ", targets: ["ZeroMQ"]),
        .library(name: "FlowCore", targets: ["FlowCore"]),
        .library(name: "FlowSpec", targets: ["FlowSpec"]),
        .library(name: "FlowWire", targets: ["FlowWire"]),
        .library(name: "FlowBus", targets: ["FlowBus"]),
        .executable(name: "flowd", targets: ["flowd"]),
        .executable(name: "flowdemo", targets: ["flowdemo"]),
        .executable(name: "flowctl", targets: ["flowctl"]),
    ],
    dependencies: [
        // YAML with line and column for every node: flow files are checked before they run.
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        // Structured logs: libraries take a Logger, executables choose where it goes.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        // The command lines of flowd and flowctl.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // flowd as a group of services (its loop, signals) with graceful shutdown on SIGTERM/SIGINT.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Metrics: flowd's instruments are swift-metrics' (any backend), exposed in Prometheus's text format by
        // swift-prometheus on /metrics.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The HTTP/1.1 server of /metrics and the health checks. (FlyingFox, lighter, imports FoundationNetworking,
        // which ties a statically linked flowd to libcurl.)
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        // Settings from flags, FLOWD_* environment variables and the YAML file, merged in that order, each value
        // knowing where it came from (`flowd config`); SIGHUP reads them again.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["YAML"]),
        // Latency percentiles in fixed memory: flowctl stats over long windows, flowctl bench over many steps.
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CZeroMQ",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"]),
        // SQLite from Debian's libsqlite3-dev for the embedded store: a dozen prepared statements do not need GRDB's
        // toolkit or sqlite-nio's event loops (see FlowStore's DocC).
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // PostgreSQL for a fleet of flowd instances, through libpq from Debian's libpq-dev: PostgreSQL's own client, blocking
        // like the journal writer's thread that uses it, without postgres-nio's event loops and TLS stack to build.
        .systemLibrary(
            name: "CPostgreSQL",
            providers: [.apt(["libpq-dev"])]
        ),
        .target(name: "FlowStore", dependencies: ["CSQLite", "CPostgreSQL"]),
        // The version and the commit the binaries were built from (--version, WELCOME, the build-info metric).
        .target(name: "FlowBuildInfo", plugins: ["BuildInfoPlugin"]),
        .plugin(name: "BuildInfoPlugin", capability: .buildTool()),
        // JSON text and values on their own: the wire reads it, the engine only holds values; fuzzed by flowfuzz.
        .target(name: "FlowJSON"),
        .target(name: "FlowCore", dependencies: ["FlowJSON"]),
        .target(name: "FlowSpec", dependencies: ["FlowCore", .product(name: "Yams", package: "Yams")]),
        // Model-based checking of flow files: every state a session can reach, explored in process.
        .target(
            name: "FlowExplorer",
            dependencies: ["FlowCore", "FlowJSON", "FlowSpec", .product(name: "Yams", package: "Yams")]
        ),
        .target(name: "FlowWire", dependencies: ["FlowCore"]),
        // The coordinator (all protocol logic: frames and the time in, messages and what to write out), its
        // durability and the configuration value, as NIOCore beside NIOPosix: no socket, no ZeroMQ, NIO or service.
        .target(
            name: "FlowDaemonCore",
            dependencies: [
                "FlowCore", "FlowSpec", "FlowWire", "FlowStore", "FlowBuildInfo",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The daemon around it: sockets, services, configuration loading, metrics and logs (re-exports FlowDaemonCore).
        .target(
            name: "FlowDaemon",
            dependencies: [
                "FlowDaemonCore", "FlowCore", "FlowSpec", "FlowWire", "FlowStore", "FlowBuildInfo", "FlowHTTP",
                "ZeroMQ",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
        .target(
            name: "FlowBus",
            dependencies: ["FlowCore", "FlowWire", "ZeroMQ", .product(name: "Logging", package: "swift-log")]
        ),
        // The demo's presenters: the terminal one, and the web page with its small page server.
        .target(
            name: "FlowDemo",
            dependencies: [
                "FlowBus", "FlowWebClient", "FlowHTTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            resources: [.embedInCode("Web/index.html"), .embedInCode("Web/demo.js"), .embedInCode("Web/demo.css")]
        ),
        // The JavaScript client (clients/js), built into flowd, which serves it beside its WebSocket endpoint.
        .target(
            name: "FlowWebClient",
            path: "clients/js",
            exclude: ["README.md", "GettingStarted.md"],
            sources: ["FlowWebClient.swift"],
            resources: [.embedInCode("flowbus.js"), .embedInCode("flowbus.d.ts")]
        ),
        .target(
            name: "FlowInspector",
            dependencies: [
                "FlowCore", "FlowSpec", "FlowWire", .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        // The small HTTP/1.1 endpoints' common part (a request in whole, an answer out): flowd's metrics and WebSocket
        // endpoints, the demo's page, flowctl web's page.
        .target(
            name: "FlowHTTP",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // flowctl web's page server: the inspector page (plain ES modules, built in), its feed over WebSocket, and
        // recordings replayed for it (the engine in process, the flows report as flowd gives it).
        .target(
            name: "FlowWebInspector",
            dependencies: [
                "FlowCore", "FlowSpec", "FlowWire", "FlowInspector", "FlowDaemonCore", "FlowHTTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            resources: [
                .embedInCode("Web/index.html"), .embedInCode("Web/inspector.js"), .embedInCode("Web/inspector.css"),
                .embedInCode("Web/modules/feed.js"), .embedInCode("Web/modules/history.js"),
                .embedInCode("Web/modules/sessions-view.js"), .embedInCode("Web/modules/tree-view.js"),
                .embedInCode("Web/modules/timeline-view.js"), .embedInCode("Web/modules/diagram-view.js"),
                .embedInCode("Web/modules/recording-view.js"), .embedInCode("Web/modules/text.js"),
            ]
        ),
        // The JSON parser and the wire codec under libFuzzer (scripts/fuzz); built plainly, it replays inputs.
        .executableTarget(name: "flowfuzz", dependencies: ["FlowWire"]),
        // The programs of FlowBus's getting-started article, built with everything else: the article shows these
        // files (a test checks that it does), so its samples always compile, and a test runs them.
        .executableTarget(
            name: "example-app-stepper",
            dependencies: ["FlowBus"],
            path: "Examples/GettingStarted/AppStepper"
        ),
        .executableTarget(
            name: "example-presenter",
            dependencies: ["FlowBus"],
            path: "Examples/GettingStarted/Presenter"
        ),
        .executableTarget(
            name: "example-parental-guard",
            dependencies: ["FlowBus"],
            path: "Examples/GettingStarted/ParentalGuard"
        ),
        .executableTarget(
            name: "flowctl",
            dependencies: [
                "FlowBus", "FlowBuildInfo", "FlowExplorer", "FlowInspector", "FlowSpec", "FlowWire", "FlowWebInspector",
                "ZeroMQ",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "flowdemo",
            dependencies: [
                "FlowBus", "FlowDemo", "FlowInspector", "FlowWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "flowd",
            dependencies: [
                "FlowSpec", "FlowExplorer", "FlowDaemon", "FlowStore", "FlowBuildInfo", "FlowWebClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "flowbench",
            dependencies: [
                // FlowBusTesting: the real PostgreSQL server the fleet's benchmark runs, as the tests start it.
                "FlowCore", "FlowBus", "FlowWire", "FlowSpec", "FlowDaemon", "ZeroMQ", "FlowBusTesting",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ", "FlowBusTesting"]),
        .testTarget(name: "FlowCoreTests", dependencies: ["FlowCore"]),
        .testTarget(name: "FlowSpecTests", dependencies: ["FlowSpec", "FlowBusTesting"]),
        .testTarget(name: "FlowExplorerTests", dependencies: ["FlowExplorer", "FlowBusTesting"], exclude: ["Flows"]),
        .testTarget(name: "FlowWireTests", dependencies: ["FlowWire", "FlowBusTesting"]),
        .testTarget(name: "FlowStoreTests", dependencies: ["FlowStore", "FlowBusTesting"]),
        // What the tests and the benchmarks share (as HummingbirdTesting): running built products, a real flowd, a
        // cuttable TCP relay, a real PostgreSQL server in a temporary directory.
        .target(name: "FlowBusTesting"),
        // The coordinator in process: its machines, and the coordinator driven by encoded frames (no socket, no flowd).
        .testTarget(
            name: "FlowDaemonCoreTests",
            dependencies: [
                "FlowDaemonCore", "FlowCore", "FlowSpec", "FlowStore", "FlowWire", "FlowBusTesting",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "FlowDaemonTests",
            dependencies: [
                "FlowDaemon", "FlowDaemonCore", "FlowCore", "FlowSpec", "FlowStore", "FlowWire", "ZeroMQ",
                "FlowBusTesting",
                .product(name: "Yams", package: "Yams"),
                // The WebSocket peer's handler on an embedded channel: no socket, no clock.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "FlowCtlTests", dependencies: ["FlowBus", "FlowInspector", "FlowBusTesting", "ZeroMQ"]),
        .testTarget(
            name: "FlowWebInspectorTests",
            dependencies: [
                "FlowWebInspector", "FlowInspector", "FlowSpec", "FlowWire", "FlowBusTesting",
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "FlowDemoTests", dependencies: ["FlowDemo", "FlowBus", "FlowBusTesting"]),
        .testTarget(
            name: "FlowBusTests",
            dependencies: ["FlowBus", "FlowCore", "FlowWire", "ZeroMQ", "FlowBusTesting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
