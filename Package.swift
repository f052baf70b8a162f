// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "FlowBus",
    products: [
        .library(name: "ZeroMQ", targets: ["ZeroMQ"])
    ],
    targets: [
        .systemLibrary(
            name: "CZeroMQ",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"]),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"]),
    ],
    swiftLanguageModes: [.v6]
)
