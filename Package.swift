// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "TransportSecurity",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "TransportSecurity", targets: ["TransportSecurity"]),
        .library(name: "TransportSecurityNIO", targets: ["TransportSecurityNIO"]),
        .library(name: "SecureSession", targets: ["SecureSession"]),
        .library(name: "HTTPMessageSignatures", targets: ["HTTPMessageSignatures"]),
        .library(name: "CircuitBreaking", targets: ["CircuitBreaking"]),
        .library(name: "OAuth", targets: ["OAuth"]),
        .library(name: "RateLimiting", targets: ["RateLimiting"]),
        .library(name: "SecureSessionOpenAPI", targets: ["SecureSessionOpenAPI"]),
        .library(name: "TransportSecurityGRPC", targets: ["TransportSecurityGRPC"]),
        .library(name: "Reachability", targets: ["Reachability"]),
        .library(name: "PKIBuilder", targets: ["PKIBuilder"]),
        .library(name: "LabServers", targets: ["LabServers"]),
        .executable(name: "tsec", targets: ["tsec"]),
    ],
    // The adapters' dependencies (grpc-swift, swift-protobuf, swift-openapi-runtime) stand behind
    // traits: a package that depends on this one with `traits: []` resolves and builds none of
    // them. Both are on by default, so this repository's own builds and tests have everything.
    traits: [
        .trait(name: "GRPC", description: "TransportSecurityGRPC (grpc-swift 2 transports over pinned and mutual TLS) and tsec grpc-health."),
        .trait(name: "OpenAPI", description: "SecureSessionOpenAPI (a swift-openapi-runtime transport over a SecureSession)."),
        .default(enabledTraits: ["GRPC", "OpenAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-http-structured-headers.git", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        .package(url: "https://github.com/grpc/grpc-swift-2.git", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport.git", from: "2.9.2"),
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "TransportSecurity",
            dependencies: [
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .target(
            name: "TransportSecurityNIO",
            dependencies: [
                "TransportSecurity",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // HTTP message signatures (RFC 9421) and Content-Digest (RFC 9530): signing and verifying
        // messages, keys; no HTTP client. The session signs and verifies through it.
        .target(
            name: "HTTPMessageSignatures",
            dependencies: [
                "TransportSecurity",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "RawStructuredFieldValues", package: "swift-http-structured-headers"),
            ]
        ),
        // Circuit breakers: per-server state, no I/O; the session and the gRPC transports count
        // their requests through it.
        .target(
            name: "CircuitBreaking",
            dependencies: ["TransportSecurity"]
        ),
        // OAuth 2.0 client parts with no HTTP client: tokens and their cache, DPoP proofs, client
        // assertions, metadata checks, and the protocol a token source answers; the session
        // fetches tokens, the gRPC transports put them on calls.
        .target(
            name: "OAuth",
            dependencies: [
                "TransportSecurity",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // Request rates and concurrency per server: state and waits bounded by the caller, no I/O.
        .target(
            name: "RateLimiting",
            dependencies: ["TransportSecurity"]
        ),
        .target(
            name: "SecureSession",
            dependencies: [
                "OAuth",
                "RateLimiting",
                "TransportSecurity",
                "TransportSecurityNIO",
                "HTTPMessageSignatures",
                "CircuitBreaking",
                "Reachability",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSOCKS", package: "swift-nio-extras"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "RawStructuredFieldValues", package: "swift-http-structured-headers"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "SecureSessionOpenAPI",
            dependencies: [
                "SecureSession",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
            ]
        ),
        .target(
            name: "TransportSecurityGRPC",
            dependencies: [
                "CircuitBreaking",
                "OAuth",
                "TransportSecurity",
                "TransportSecurityNIO",
                .product(name: "GRPCCore", package: "grpc-swift-2", condition: .when(traits: ["GRPC"])),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport", condition: .when(traits: ["GRPC"])),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCertificateReloading", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf", condition: .when(traits: ["GRPC"])),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .target(name: "CNetlink"),
        .target(
            name: "Reachability",
            dependencies: ["CNetlink", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        .target(
            name: "PKIBuilder",
            dependencies: [
                "TransportSecurity",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .target(
            name: "LabServers",
            dependencies: [
                "PKIBuilder",
                "TransportSecurityNIO",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]
        ),
        .target(
            name: "TSecCLI",
            dependencies: [
                "RateLimiting",
                "OAuth",
                "CircuitBreaking",
                "HTTPMessageSignatures",
                "TransportSecurity",
                "LabServers",
                "TransportSecurityNIO",
                "SecureSession",
                "PKIBuilder",
                "Reachability",
                .target(name: "TransportSecurityGRPC", condition: .when(traits: ["GRPC"])),
                .product(name: "GRPCCore", package: "grpc-swift-2", condition: .when(traits: ["GRPC"])),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport", condition: .when(traits: ["GRPC"])),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Atomics", package: "swift-atomics"),
            ]
        ),
        .executableTarget(name: "tsec", dependencies: ["TSecCLI"]),
        .testTarget(
            name: "TransportSecurityTests",
            dependencies: [
                "TransportSecurity",
                "PKIBuilder",
                "TestServers",
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        .target(
            name: "TestServers",
            dependencies: [
                "OAuth",
                "HTTPMessageSignatures",
                "TransportSecurity",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                "TransportSecurityNIO",
                "PKIBuilder",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                "LabServers",
                "SecureSession",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "GRPCCore", package: "grpc-swift-2", condition: .when(traits: ["GRPC"])),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport", condition: .when(traits: ["GRPC"])),
            ],
            path: "Tests/TestServers"
        ),
        .testTarget(
            name: "TransportSecurityNIOTests",
            dependencies: [
                "TransportSecurityNIO",
                "TestServers",
                "TransportSecurity",
                "PKIBuilder",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        .testTarget(
            name: "SecureSessionOpenAPITests",
            dependencies: [
                .target(name: "SecureSessionOpenAPI", condition: .when(traits: ["OpenAPI"])),
                "SecureSession",
                "TestServers",
                "TransportSecurity",
                "PKIBuilder",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
            ]
        ),
        .testTarget(
            name: "SecureSessionTests",
            dependencies: [
                "RateLimiting",
                "OAuth",
                "CircuitBreaking",
                "HTTPMessageSignatures",
                "SecureSession",
                "Reachability",
                "TestServers",
                "TransportSecurityNIO",
                "TransportSecurity",
                "PKIBuilder",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSOCKS", package: "swift-nio-extras"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "TransportSecurityGRPCTests",
            dependencies: [
                "OAuth",
                "CircuitBreaking",
                .target(name: "TransportSecurityGRPC", condition: .when(traits: ["GRPC"])),
                "TransportSecurityNIO",
                "TransportSecurity",
                "SecureSession",
                "TestServers",
                "PKIBuilder",
                .product(name: "GRPCCore", package: "grpc-swift-2", condition: .when(traits: ["GRPC"])),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport", condition: .when(traits: ["GRPC"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf", condition: .when(traits: ["GRPC"])),
            ]
        ),
        .testTarget(
            name: "DocumentationExamplesTests",
            dependencies: [
                "RateLimiting",
                "OAuth",
                "CircuitBreaking",
                "HTTPMessageSignatures",
                "TransportSecurity",
                "PKIBuilder",
                "TransportSecurityNIO",
                "SecureSession",
                .target(name: "SecureSessionOpenAPI", condition: .when(traits: ["OpenAPI"])),
                .target(name: "TransportSecurityGRPC", condition: .when(traits: ["GRPC"])),
                "Reachability",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "GRPCCore", package: "grpc-swift-2", condition: .when(traits: ["GRPC"])),
                .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport", condition: .when(traits: ["GRPC"])),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ReachabilityTests",
            dependencies: [
                "Reachability", "CNetlink", "TestServers",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TSecCLITests",
            dependencies: [
                "OAuth",
                "HTTPMessageSignatures",
                "TSecCLI",
                .target(name: "TransportSecurityGRPC", condition: .when(traits: ["GRPC"])),
                .product(name: "GRPCCore", package: "grpc-swift-2", condition: .when(traits: ["GRPC"])),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport", condition: .when(traits: ["GRPC"])),
                "LabServers",
                "TestServers",
                "SecureSession",
                "TransportSecurity",
                "TransportSecurityNIO",
                "PKIBuilder",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
    ]
)
