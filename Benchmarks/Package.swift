// swift-tools-version: 6.2
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
        // Resolved for its sources only: the MatttEventSource target below compiles them.
        .package(url: "https://github.com/mattt/EventSource.git", exact: "1.1.1"),
        .package(name: "HeronAsyncHTTPClient", path: "../Integrations/AsyncHTTPClient"),
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
    ],
    targets: [
        .target(name: "BenchmarkSupport", path: "Sources/BenchmarkSupport"),
        // mattt/EventSource 1.1.1's sources, through the link `Upstream` into its checkout, with
        // a shim for the one URLSession method Linux lacks (see LinuxShim.swift).
        .target(name: "MatttEventSource", path: "ThirdParty/MatttEventSource"),
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
            name: "CacheBenchmark",
            dependencies: [
                "BenchmarkSupport", .product(name: "HTTPCache", package: "Heron"),
                .product(name: "HTTPClient", package: "Heron"), .product(name: "HTTPCore", package: "Heron"),
            ]
        ),
        .executableTarget(
            name: "CookieBenchmark",
            dependencies: ["BenchmarkSupport", .product(name: "HTTPCookies", package: "Heron")]
        ),
        .executableTarget(
            name: "EndpointBenchmark",
            dependencies: ["BenchmarkSupport", .product(name: "HTTPEndpoints", package: "Heron")]
        ),
        .executableTarget(
            name: "ClientBenchmark",
            dependencies: ["BenchmarkSupport", .product(name: "HTTPClient", package: "Heron")]
        ),
        // LoopbackServer.swift, UploadFile.swift, BenchmarkedClient.swift and RequestRounds.swift are
        // links to ClientBenchmark's.
        .executableTarget(
            name: "AsyncHTTPClientBenchmark",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "HTTPClient", package: "Heron"),
                .product(name: "HeronAsyncHTTPClient", package: "HeronAsyncHTTPClient"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // Counts the process's heap allocations (it replaces glibc's malloc in the executable
        // that links it) and the jobs of Swift's global executor.
        .target(name: "MallocCounter", path: "Sources/MallocCounter"),
        // LoopbackServer.swift is a link to ClientBenchmark's.
        .executableTarget(
            name: "AllocationBenchmark",
            dependencies: [
                "BenchmarkSupport", "MallocCounter",
                .product(name: "HTTPClient", package: "Heron"),
                .product(name: "HeronAsyncHTTPClient", package: "HeronAsyncHTTPClient"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
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
                "MatttEventSource",
            ],
            exclude: ["eventsource-client.js"]
        ),
    ]
)
