// swift-tools-version: 6.2
import PackageDescription

/// Compiler settings shared by every target, as in Heron's root package: Swift 6 language
/// mode comes from the tools version; `ExistentialAny` makes every existential spelled `any`.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

/// A transport of apple/swift-openapi-runtime that sends through Heron's `Client`, kept in a
/// package of its own so that Heron's root package stays free of dependencies.
let package = Package(
    name: "HeronOpenAPI",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "HeronOpenAPI", targets: ["HeronOpenAPI"])
    ],
    dependencies: [
        .package(name: "Heron", path: "../.."),
        .package(name: "HeronHTTPTypes", path: "../HTTPTypes"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        .target(
            name: "HeronOpenAPI",
            dependencies: [
                .product(name: "HTTPClient", package: "Heron"),
                .product(name: "HTTPCore", package: "Heron"),
                .product(name: "HeronHTTPTypes", package: "HeronHTTPTypes"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        // The tests hold, in Generated/, the client swift-openapi-generator 1.14.3 made from
        // openapi.yaml (regenerate.sh makes it again): CI compiles it, never the generator.
        .testTarget(
            name: "HeronOpenAPITests",
            dependencies: [
                "HeronOpenAPI",
                .product(name: "HTTPClient", package: "Heron"),
                .product(name: "HTTPClientTesting", package: "Heron"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
