// swift-tools-version: 6.2
import PackageDescription

/// Compiler settings shared by every target, as in Heron's root package: Swift 6 language
/// mode comes from the tools version; `ExistentialAny` makes every existential spelled `any`.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

/// The repositories `scripts/publish-integrations` wrote, beside this manifest:
/// `scripts/test-published` copies this package into `.build-consumer/` and publishes into
/// `.build-consumer/published/`, so a user's only way in, a URL and a version, is the one tested.
let published = "file://\(Context.packageDirectory)/published"

/// A user of Heron's published packages: one call through each integration, against the local
/// servers. `scripts/test-published` appends to this manifest each published integration's own
/// test targets (read from its manifest), so that one `swift test` builds SwiftNIO once and runs
/// them all against the published repositories.
let package = Package(
    name: "HeronConsumer",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    dependencies: [
        .package(url: "\(published)/heron.git", .upToNextMinor(from: "0.9.0")),
        .package(url: "\(published)/heron-http-types.git", .upToNextMinor(from: "0.9.0")),
        .package(url: "\(published)/heron-observability.git", .upToNextMinor(from: "0.9.0")),
        // With its trailers on: the integration's trailer test expects them.
        .package(
            url: "\(published)/heron-async-http-client.git", .upToNextMinor(from: "0.9.0"),
            traits: ["ResponseTrailers"]),
        .package(url: "\(published)/heron-openapi.git", .upToNextMinor(from: "0.9.0")),
        // The versions the integrations name, for the modules the calls use directly.
        .package(url: "https://github.com/apple/swift-http-types.git", exact: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", exact: "1.7.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", exact: "1.13.4"),
    ],
    targets: [
        .testTarget(
            name: "PublishedPackagesTests",
            dependencies: [
                .product(name: "HTTPClient", package: "heron"),
                .product(name: "HTTPCore", package: "heron"),
                .product(name: "HeronHTTPTypes", package: "heron-http-types"),
                .product(name: "HeronLogging", package: "heron-observability"),
                .product(name: "HeronMetrics", package: "heron-observability"),
                .product(name: "HeronTracing", package: "heron-observability"),
                .product(name: "HeronAsyncHTTPClient", package: "heron-async-http-client"),
                .product(name: "HeronOpenAPI", package: "heron-openapi"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: swiftSettings
        )
    ]
)
