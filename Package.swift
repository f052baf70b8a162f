// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "FlowBus",
    products: [
        .library(name: "ZeroMQ", targets: ["ZeroMQ"]),
        .library(name: "FlowCore", targets: ["FlowCore"]),
    ],
    targets: [
        .systemLibrary(
            name: "CZeroMQ",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"]),
        .target(name: "FlowCore"),
        .executableTarget(name: "flowbench", dependencies: ["FlowCore"]),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"]),
        .testTarget(name: "FlowCoreTests", dependencies: ["FlowCore"]),
    ],
    swiftLanguageModes: [.v6]
)
