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
        )
    ]
)
