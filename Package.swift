// swift-tools-version: 6.2
import PackageDescription

/// Compiler settings shared by every target: Swift 6 language mode comes from the
/// tools version; `ExistentialAny` makes every existential spelled `any`.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "Heron",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "HTTPCore", targets: ["HTTPCore"]),
        .library(name: "HTTPEncoding", targets: ["HTTPEncoding"]),
        .library(name: "HTTPMultipart", targets: ["HTTPMultipart"]),
        .library(name: "HTTPClient", targets: ["HTTPClient"]),
        .library(name: "HTTPEndpoints", targets: ["HTTPEndpoints"]),
        // Beside the client, for those who need them; nothing above depends on them.
        .library(name: "HTTPCache", targets: ["HTTPCache"]),
        .library(name: "HTTPClientTesting", targets: ["HTTPClientTesting"]),
        .library(name: "HTTPCookies", targets: ["HTTPCookies"]),
    ],
    targets: [
        .target(name: "HTTPCore", swiftSettings: swiftSettings),
        .target(name: "HTTPEncoding", dependencies: ["HTTPCore"], swiftSettings: swiftSettings),
        .target(name: "HTTPMultipart", dependencies: ["HTTPCore", "HTTPEncoding"], swiftSettings: swiftSettings),
        .target(name: "HTTPClient", dependencies: ["HTTPCore"], swiftSettings: swiftSettings),
        .target(
            name: "HTTPEndpoints",
            dependencies: ["HTTPCore", "HTTPEncoding", "HTTPMultipart", "HTTPClient"],
            swiftSettings: swiftSettings
        ),
        // The RFC 9111 cache: a ClientTransport decorator the client never learns of.
        .target(name: "HTTPCache", dependencies: ["HTTPCore", "HTTPClient"], swiftSettings: swiftSettings),
        // Transports for users' tests: the stub transport, HAR record and replay.
        .target(name: "HTTPClientTesting", dependencies: ["HTTPCore", "HTTPClient"], swiftSettings: swiftSettings),
        // The RFC 6265bis cookie jar, with the public suffix list compiled in.
        .target(name: "HTTPCookies", dependencies: ["HTTPCore", "HTTPClient"], swiftSettings: swiftSettings),
        .target(
            name: "TestSupport",
            dependencies: ["HTTPCore"],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        // Test traits (the `.heavyWork` executor), for the test targets only: it imports Testing.
        .target(name: "TestTraits", path: "Tests/TestTraits", swiftSettings: swiftSettings),
        .testTarget(
            name: "HTTPCoreTests", dependencies: ["HTTPCore", "TestSupport", "TestTraits"], swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HTTPEncodingTests",
            dependencies: ["HTTPEncoding", "TestSupport", "TestTraits"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HTTPMultipartTests",
            dependencies: ["HTTPMultipart", "TestSupport", "TestTraits"],
            swiftSettings: swiftSettings
        ),
        // A child process for HTTPClientTests' 1 GiB upload (see Tests/UploadProbe): an
        // executable target listed in no product, so it is built with the tests and never shipped.
        .executableTarget(
            name: "HeronUploadProbe",
            dependencies: ["HTTPClient", "HTTPCore", "HTTPMultipart", "TestSupport"],
            path: "Tests/UploadProbe",
            swiftSettings: swiftSettings
        ),
        // A child process for HTTPClientTests' trailer test (see Tests/TrailerProbe): a response
        // with trailers ends a Linux process inside swift-corelibs-foundation.
        .executableTarget(
            name: "HeronTrailerProbe",
            dependencies: ["HTTPClient", "HTTPCore"],
            path: "Tests/TrailerProbe",
            swiftSettings: swiftSettings
        ),
        // A child process for HTTPClientTests' resumable downloads (see Tests/DownloadProbe): a
        // resume after a restart, and a 256 MiB body cut 20 times, in bounded memory.
        .executableTarget(
            name: "HeronDownloadProbe",
            dependencies: ["HTTPClient", "HTTPCore", "TestSupport"],
            path: "Tests/DownloadProbe",
            swiftSettings: swiftSettings
        ),
        // A child process for HTTPClientTests' proxy cases (see Tests/ProxyProbe): libcurl reads
        // its proxy from the process's environment, which a test must not change under others.
        .executableTarget(
            name: "HeronProxyProbe",
            dependencies: ["HTTPClient", "HTTPCore"],
            path: "Tests/ProxyProbe",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HTTPClientTests",
            dependencies: [
                "HTTPClient", "HTTPClientTesting", "TestSupport", "TestTraits", "HeronUploadProbe", "HeronTrailerProbe",
                "HeronDownloadProbe", "HeronProxyProbe",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HTTPEndpointsTests",
            dependencies: ["HTTPEndpoints", "HTTPClientTesting", "TestSupport", "TestTraits"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HTTPCacheTests",
            dependencies: ["HTTPCache", "HTTPClient", "HTTPClientTesting", "TestSupport", "TestTraits"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HTTPCookiesTests",
            dependencies: ["HTTPCookies", "HTTPClient", "HTTPClientTesting", "HTTPCache", "TestSupport", "TestTraits"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HTTPClientTestingTests",
            dependencies: ["HTTPClientTesting", "HTTPClient", "TestSupport"],
            swiftSettings: swiftSettings
        ),
    ]
)
