// swift-tools-version:6.0
import PackageDescription

// TransportSecurity's mutual TLS in the two server frameworks most Swift servers run on: Vapor
// and Hummingbird, each requiring client certificates that a PeerTrustVerifier decides and
// reading who the client is in a route. A package of its own, because the frameworks take
// several minutes to build and are not dependencies of TransportSecurity: `swift test` here.
let package = Package(
    name: "ServerFrameworks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "TransportSecurity", path: "../.."),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .testTarget(
            name: "ServerFrameworksTests",
            dependencies: [
                .product(name: "TransportSecurity", package: "TransportSecurity"),
                .product(name: "TransportSecurityNIO", package: "TransportSecurity"),
                .product(name: "SecureSession", package: "TransportSecurity"),
                .product(name: "PKIBuilder", package: "TransportSecurity"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        )
    ]
)
