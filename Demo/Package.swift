// swift-tools-version: 6.2
import PackageDescription

// The demo lives in its own package so the library's manifest names no executable and a
// user who depends on one product never builds it. Run it with `scripts/demo`, which starts
// local httpbin and fault servers and builds this package in release mode.
let package = Package(
    name: "HeronDemo",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Heron", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "HeronDemo",
            dependencies: [.product(name: "HTTPEndpoints", package: "Heron")],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        )
    ]
)
