// swift-tools-version: 6.2
// libFuzzer targets for Heron's parsers and encoders of outside input (issue: hardening).
// Built with the toolchain's fuzzer and address sanitizer by `scripts/fuzz`, never shipped:
//   scripts/fuzz media-type 60
import PackageDescription

/// Each target defines `LLVMFuzzerTestOneInput`; libFuzzer provides `main`.
let fuzzSettings: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

/// One fuzz target in `Sources/NAME`, using one of Heron's products.
func fuzzTarget(_ name: String, _ product: String) -> Target {
    .executableTarget(
        name: name, dependencies: [.product(name: product, package: "Heron")], path: "Sources/\(name)",
        swiftSettings: fuzzSettings)
}

/// A fuzz target of the client's parts: HTTPCore, HTTPClient, `products` and FuzzSupport.
func clientFuzzTarget(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport"]
            + (["HTTPCore", "HTTPClient"] + products).map { .product(name: $0, package: "Heron") },
        path: "Sources/\(name)", swiftSettings: fuzzSettings)
}

let package = Package(
    name: "HeronFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Heron", path: "..")],
    targets: [
        fuzzTarget("FuzzMediaType", "HTTPCore"),
        fuzzTarget("FuzzHTTPDate", "HTTPCore"),
        fuzzTarget("FuzzHeaderField", "HTTPCore"),
        fuzzTarget("FuzzForm", "HTTPEncoding"),
        fuzzTarget("FuzzFormParameters", "HTTPEncoding"),
        .executableTarget(
            name: "FuzzMultipart",
            dependencies: ["FuzzSupport", .product(name: "HTTPMultipart", package: "Heron")],
            path: "Sources/FuzzMultipart", swiftSettings: fuzzSettings),
        fuzzTarget("FuzzURITemplate", "HTTPEndpoints"),
        .executableTarget(
            name: "FuzzCache",
            dependencies: [
                "FuzzSupport", .product(name: "HTTPCache", package: "Heron"),
                .product(name: "HTTPClient", package: "Heron"), .product(name: "HTTPCore", package: "Heron"),
            ],
            path: "Sources/FuzzCache", swiftSettings: fuzzSettings),
        // What the fuzz targets share: running an async body to its end, reading fields.
        .target(
            name: "FuzzSupport",
            dependencies: ["HTTPCore", "HTTPClient", "HTTPCache"].map { .product(name: $0, package: "Heron") },
            path: "Sources/FuzzSupport"),
        clientFuzzTarget("FuzzVary", ["HTTPCache"]),
        clientFuzzTarget("FuzzCacheControl", ["HTTPCache"]),
        clientFuzzTarget("FuzzHAR", ["HTTPClientTesting"]),
    ]
)
