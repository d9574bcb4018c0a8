// swift-tools-version: 6.2
import PackageDescription

/// Compiler settings shared by every target, as in Heron's root package: Swift 6 language
/// mode comes from the tools version; `ExistentialAny` makes every existential spelled `any`.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

/// A transport for Heron's client over swift-server/async-http-client (SwiftNIO). It lives in
/// a package of its own so that Heron's root package stays free of dependencies.
let package = Package(
    name: "HeronAsyncHTTPClient",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "HeronAsyncHTTPClient", targets: ["HeronAsyncHTTPClient"])
    ],
    traits: [
        .trait(
            name: "ResponseTrailers",
            description: """
                Delivers the trailer fields of responses (HTTPBody.trailerFields), which
                AsyncHTTPClient exposes only with its UnstableHTTPAPIsSupport trait, whose API
                may change in any release: enable it only with an exact AsyncHTTPClient version.
                """
        ),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(name: "Heron", path: "../.."),
        .package(
            url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0",
            traits: [.trait(name: "UnstableHTTPAPIsSupport", condition: .when(traits: ["ResponseTrailers"]))]),
        // At least the versions async-http-client 1.37.0 resolves to, named for the modules used directly.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        .target(
            name: "HeronAsyncHTTPClient",
            dependencies: [
                .product(name: "HTTPClient", package: "Heron"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        // The transport contract suite of Tests/TransportContract (through the link
        // Tests/HeronAsyncHTTPClientTests/TransportContract), run against both transports, and
        // this package's own tests.
        .testTarget(
            name: "HeronAsyncHTTPClientTests",
            dependencies: [
                "HeronAsyncHTTPClient",
                .product(name: "HTTPClient", package: "Heron"),
                .product(name: "HTTPCookies", package: "Heron"),
                .product(name: "HTTPCache", package: "Heron"),
                .product(name: "HTTPClientTesting", package: "Heron"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
