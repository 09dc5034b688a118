import Benchmark
import Foundation
import PKIBuilder
import TransportSecurity
@_spi(FixedExpiryValidationTime) import X509

/// One 3-certificate chain (leaf, intermediate, root as anchor) and everything needed to
/// evaluate it, built once per key type.
struct Scenario: Sendable {
    let name: String
    let host = "bench.example.test"
    let time: Date
    let leaf: Certificate
    let intermediate: Certificate
    let roots: CertificateStore
    let trust: ServerTrust
    let policy: SecurityPolicy

    init(_ algorithm: KeyAlgorithm) throws {
        let pki = PKI()
        let root = try pki.issueRoot(.certificateAuthority("Bench Root"), algorithm: algorithm)
        let intermediate = try pki.issue(.certificateAuthority("Bench CA"), by: root, algorithm: algorithm)
        let leaf = try pki.issue(.server(host), by: intermediate, algorithm: algorithm)
        name = algorithm == .p256 ? "P-256" : "RSA-2048"
        time = pki.now
        self.leaf = leaf.certificate
        self.intermediate = intermediate.certificate
        roots = CertificateStore([root.certificate])
        trust = ServerTrust(
            chain: [leaf.der, intermediate.der],
            policy: .ssl(host),
            systemStore: TrustStore([root.der], origin: "bench"),
            evaluationTime: pki.now
        )
        policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [root.der])
    }

    /// The peer: swift-certificates' stock verifier with RFC 5280 and server-identity policies.
    func stockValidate() async -> Bool {
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            ServerIdentityPolicy(serverHostname: host, serverIP: nil)
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
        if case .validCertificate = result { return true }
        return false
    }
}

/// A hostile chain: six layers of eight cross-signed CAs sharing names (`PKI.crossSignedMesh`), no path to the anchor, so
/// path building explores until its work budget is spent.
func hostileMesh() throws -> ServerTrust {
    let pki = PKI()
    let root = try pki.issueRoot(.certificateAuthority("Mesh Root"))
    let mesh = try pki.crossSignedMesh(under: root, host: "mesh.example.test")
    let unrelated = try pki.issueRoot(.certificateAuthority("Unrelated Root"))
    return ServerTrust(
        chain: mesh.chain.map(\.der),
        policy: .ssl("mesh.example.test"),
        systemStore: TrustStore([unrelated.der]),
        evaluationTime: pki.now
    )
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        warmupIterations: 50,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 20_000
    )
    Benchmark.defaultConfiguration = configuration

    for algorithm in [KeyAlgorithm.p256, .rsa2048] {
        let scenario = try! Scenario(algorithm)

        Benchmark("stock Verifier.validate \(scenario.name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(await scenario.stockValidate())
            }
        }

        Benchmark("cold SecurityPolicy.evaluate \(scenario.name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(await scenario.policy.evaluate(scenario.trust, forDomain: scenario.host).isTrusted)
            }
        }

        let cache = DecisionCache()
        let cached = CachingTrustEvaluator(scenario.policy, cache: cache)
        Benchmark(
            "warm CachingTrustEvaluator.evaluate \(scenario.name)",
            // A cache hit takes about a microsecond, as long as the runner's own work around one
            // sample (clocks, CPU time, malloc counters): each sample is a thousand hits, and the
            // figures (marked *) are per hit.
            configuration: .init(
                scalingFactor: .kilo,
                setup: { _ = await cached.evaluate(scenario.trust, forHost: scenario.host) }
            )
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(await cached.evaluate(scenario.trust, forHost: scenario.host).isTrusted)
            }
        }
    }

    let mesh = try! hostileMesh()
    Benchmark("hostile mesh rejected at the work budget") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(await mesh.evaluate().isTrusted)
        }
    }
}
