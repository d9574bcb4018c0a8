// swift-tools-version: 6.2
import PackageDescription

/// Compiler settings shared by every target, as in Heron's root package: Swift 6 language
/// mode comes from the tools version; `ExistentialAny` makes every existential spelled `any`.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

/// Conversions between Heron's HTTPCore and apple/swift-http-types, kept in a package of its
/// own so that Heron's root package stays free of dependencies.
let package = Package(
    name: "HeronHTTPTypes",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "HeronHTTPTypes", targets: ["HeronHTTPTypes"])
    ],
    dependencies: [
        .package(name: "Heron", path: "../.."),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        .target(
            name: "HeronHTTPTypes",
            dependencies: [
                .product(name: "HTTPCore", package: "Heron"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeronHTTPTypesTests",
            dependencies: ["HeronHTTPTypes"],
            swiftSettings: swiftSettings
        ),
    ]
)
