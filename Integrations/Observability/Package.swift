// swift-tools-version: 6.2
import PackageDescription

/// Compiler settings shared by every target, as in Heron's root package: Swift 6 language
/// mode comes from the tools version; `ExistentialAny` makes every existential spelled `any`.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

/// Bridges from Heron's client to the Swift server ecosystem's observability APIs:
/// apple/swift-log, apple/swift-metrics and apple/swift-distributed-tracing. They live in a
/// package of their own so that Heron's root package stays free of dependencies.
let package = Package(
    name: "HeronObservability",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "HeronLogging", targets: ["HeronLogging"]),
        .library(name: "HeronMetrics", targets: ["HeronMetrics"]),
        .library(name: "HeronTracing", targets: ["HeronTracing"]),
    ],
    dependencies: [
        .package(name: "Heron", path: "../.."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
    ],
    targets: [
        .target(
            name: "HeronLogging",
            dependencies: [
                .product(name: "HTTPClient", package: "Heron"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeronMetrics",
            dependencies: [
                .product(name: "HTTPClient", package: "Heron"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeronTracing",
            dependencies: [
                .product(name: "HTTPClient", package: "Heron"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeronLoggingTests",
            dependencies: [
                "HeronLogging",
                .product(name: "HTTPClientTesting", package: "Heron"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeronMetricsTests",
            dependencies: [
                "HeronMetrics",
                .product(name: "HTTPClientTesting", package: "Heron"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeronTracingTests",
            dependencies: [
                "HeronTracing",
                .product(name: "HTTPClientTesting", package: "Heron"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
