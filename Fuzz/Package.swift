// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for the parsers of TransportSecurity. Build and run with `Fuzz/run.sh`
// (it passes `-sanitize=fuzzer,address`); each target's `@main` hands its input handler to
// libFuzzer's driver (FuzzDriver).
let fuzzTargets: [(name: String, products: [String])] = [
    ("FuzzCertificateLoading", ["TransportSecurity"]),
    ("FuzzCertificateDirectory", ["TransportSecurity"]),
    ("FuzzPKCS12", ["TransportSecurityNIO"]),
    ("FuzzPinParsing", ["TransportSecurity"]),
    ("FuzzConfiguration", ["TransportSecurity"]),
    ("FuzzPinUpdate", ["TransportSecurity"]),
    ("FuzzHostMatching", ["TransportSecurity"]),
    ("FuzzPublicSuffixList", ["TransportSecurity"]),
    ("FuzzCookies", ["SecureSession", "TransportSecurity"]),
    ("FuzzHSTS", ["SecureSession"]),
    ("FuzzServerSentEvents", ["SecureSession"]),
    ("FuzzPropertyListBody", ["SecureSession"]),
    ("FuzzRevocation", ["TransportSecurity", "PKIBuilder"]),
    ("FuzzResponses", ["SecureSession"]),
    ("FuzzMessageSignatures", ["SecureSession", "HTTPMessageSignatures"]),
]

let package = Package(
    name: "TransportSecurityFuzz",
    dependencies: [.package(name: "TransportSecurity", path: "..")],
    targets: fuzzTargets.map { target in
        .executableTarget(
            name: target.name,
            dependencies: ["FuzzDriver"] + target.products.map { .product(name: $0, package: "TransportSecurity") }
        )
    } + [.target(name: "FuzzDriver")]
)
