// swift-tools-version: 6.0
import PackageDescription

// Benchmarks live in their own package so the library's manifest names no package.
// Run them in release mode: `swift run -c release --package-path Benchmarks <Name>`.
let package = Package(
    name: "HeronBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Heron", path: ".."),
        .package(url: "https://github.com/vapor/multipart-kit.git", exact: "4.7.1"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", exact: "1.13.4"),
    ],
    targets: [
        .target(name: "BenchmarkSupport", path: "Sources/BenchmarkSupport"),
        .executableTarget(
            name: "EncodingBenchmark",
            dependencies: ["BenchmarkSupport", .product(name: "HTTPEncoding", package: "Heron")]
        ),
        .executableTarget(
            name: "MultipartBenchmark",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "HTTPMultipart", package: "Heron"),
                .product(name: "MultipartKit", package: "multipart-kit"),
            ]
        ),
        .executableTarget(
            name: "EndpointBenchmark",
            dependencies: ["BenchmarkSupport", .product(name: "HTTPEndpoints", package: "Heron")]
        ),
        .executableTarget(
            name: "ClientBenchmark",
            dependencies: ["BenchmarkSupport", .product(name: "HTTPClient", package: "Heron")]
        ),
        .executableTarget(
            name: "EventStreamBenchmark",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "HTTPCore", package: "Heron"),
                .product(name: "HTTPEncoding", package: "Heron"),
                .product(name: "HTTPClient", package: "Heron"),
                .product(name: "HTTPEndpoints", package: "Heron"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            exclude: ["eventsource-client.js"]
        ),
    ]
)
