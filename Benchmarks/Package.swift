// swift-tools-version:6.1
import PackageDescription

// Performance benchmarks, kept out of the main package and of CI (a cold build takes minutes).
// Run from this directory: swift package --disable-sandbox benchmark
let package = Package(
    name: "TransportSecurityBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "TransportSecurity", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    ],
    targets: [
        .executableTarget(
            name: "TrustEvaluation",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TransportSecurity", package: "TransportSecurity"),
                .product(name: "PKIBuilder", package: "TransportSecurity"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Benchmarks/TrustEvaluation",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Not a benchmark: a plain loop over the cold evaluation's parts, for `perf record` and
        // for the breakdown in BENCHMARKS.md (swift run -c release EngineProfile [p256|rsa]).
        .executableTarget(
            name: "EngineProfile",
            dependencies: [
                .product(name: "TransportSecurity", package: "TransportSecurity"),
                .product(name: "PKIBuilder", package: "TransportSecurity"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Benchmarks/EngineProfile"
        ),
        // The PKI and the in-process HTTPS server of the session benchmarks and of SessionProfile.
        .target(
            name: "BenchSupport",
            dependencies: [
                .product(name: "TransportSecurity", package: "TransportSecurity"),
                .product(name: "TransportSecurityNIO", package: "TransportSecurity"),
                .product(name: "PKIBuilder", package: "TransportSecurity"),
                .product(name: "LabServers", package: "TransportSecurity"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Benchmarks/BenchSupport"
        ),
        // Not a benchmark: a plain loop of TLS handshakes against the handshake benchmarks' server,
        // for `perf record` (swift run -c release HandshakeProfile default|warm|cold [COUNT] [CONCURRENCY]).
        .executableTarget(
            name: "HandshakeProfile",
            dependencies: ["BenchSupport"],
            path: "Benchmarks/HandshakeProfile"
        ),
        // Not a benchmark: a plain keep-alive loop, SecureSession or AsyncHTTPClient, for `perf
        // record` (swift run -c release SessionProfile secure|ahc [COUNT]).
        .executableTarget(
            name: "SessionProfile",
            dependencies: [
                "BenchSupport",
                .product(name: "TransportSecurity", package: "TransportSecurity"),
                .product(name: "SecureSession", package: "TransportSecurity"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Benchmarks/SessionProfile"
        ),
        .executableTarget(
            name: "Session",
            dependencies: [
                "BenchSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TransportSecurity", package: "TransportSecurity"),
                .product(name: "TransportSecurityNIO", package: "TransportSecurity"),
                .product(name: "SecureSession", package: "TransportSecurity"),
                .product(name: "PKIBuilder", package: "TransportSecurity"),
                .product(name: "LabServers", package: "TransportSecurity"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Benchmarks/Session",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "MessageSignatures",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "SecureSession", package: "TransportSecurity"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Benchmarks/MessageSignatures",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Not a benchmark of the plugin: the soak, a long mixed run with a summary at the end
        // (swift run -c release Soak [REQUESTS] [CONCURRENCY]; BENCHMARKS.md).
        .executableTarget(
            name: "Soak",
            dependencies: [
                .product(name: "TransportSecurity", package: "TransportSecurity"),
                .product(name: "TransportSecurityNIO", package: "TransportSecurity"),
                .product(name: "SecureSession", package: "TransportSecurity"),
                .product(name: "PKIBuilder", package: "TransportSecurity"),
                .product(name: "LabServers", package: "TransportSecurity"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            path: "Benchmarks/Soak"
        ),
    ]
)
