// Where a cold evaluation's time goes, outside the benchmark runner: the floor (the two
// signature checks every validator of a 3-certificate chain makes), the stock verifier and this
// library's cold evaluation measured alternately in one process, and each web-PKI policy on its
// own. A plain loop, so that `perf record` sees only the evaluation. With `warm`, where a
// cache hit's time goes instead: making the key, hashing it, the lookup.
//
//     swift run -c release EngineProfile [p256|rsa] [warm]
import Foundation
import PKIBuilder
import SwiftASN1
import TransportSecurity
@_spi(FixedExpiryValidationTime) import X509

let algorithm: KeyAlgorithm = CommandLine.arguments.dropFirst().first == "rsa" ? .rsa2048 : .p256
let host = "bench.example.test"
let pki = PKI()
let root = try pki.issueRoot(.certificateAuthority("Bench Root"), algorithm: algorithm)
let intermediate = try pki.issue(.certificateAuthority("Bench CA"), by: root, algorithm: algorithm)
let leaf = try pki.issue(.server(host), by: intermediate, algorithm: algorithm)
let trust = ServerTrust(
    chain: [leaf.der, intermediate.der],
    policy: .ssl(host),
    systemStore: TrustStore([root.der], origin: "bench"),
    evaluationTime: pki.now
)
let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [root.der])
let roots = CertificateStore([root.certificate])

/// The mean time of one call of `body` over `count` calls, after a warm-up.
func meanTime(_ count: Int = 20_000, _ body: () async -> Void) async -> Duration {
    for _ in 0..<count / 10 { await body() }
    let start = ContinuousClock.now
    for _ in 0..<count { await body() }
    return (ContinuousClock.now - start) / count
}

func microseconds(_ duration: Duration) -> String {
    String(format: "%.2f µs", Double(duration.components.attoseconds) / 1e12 + Double(duration.components.seconds) * 1e6)
}

func stockValidation() async {
    var verifier = Verifier(rootCertificates: roots) {
        RFC5280Policy(fixedExpiryValidationTime: pki.now)
        ServerIdentityPolicy(serverHostname: host, serverIP: nil)
    }
    guard case .validCertificate = await verifier.validate(leaf: leaf.certificate, intermediates: CertificateStore([intermediate.certificate])) else {
        fatalError("the stock verifier refused the bench chain")
    }
}

func coldEvaluation() async {
    guard await policy.evaluate(trust, forDomain: host).isTrusted else { fatalError("the policy refused the bench chain") }
}

/// The candidate path the verifier proposes for the bench chain.
func benchPath() async -> UnverifiedCertificateChain {
    final class Captured: @unchecked Sendable { var chain: UnverifiedCertificateChain? }
    struct Capturing: VerifierPolicy {
        let captured: Captured
        let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [
            .X509ExtensionID.basicConstraints, .X509ExtensionID.keyUsage, .X509ExtensionID.subjectAlternativeName,
            .X509ExtensionID.extendedKeyUsage, .X509ExtensionID.nameConstraints,
        ]
        func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
            captured.chain = chain
            return .meetsPolicy
        }
    }
    let captured = Captured()
    var verifier = Verifier(rootCertificates: roots) { Capturing(captured: captured) }
    _ = await verifier.validate(leaf: leaf.certificate, intermediates: CertificateStore([intermediate.certificate]))
    return captured.chain!
}

/// A cache hit, whole and in its parts.
func profileWarm() async {
    let cache = DecisionCache()
    let cached = CachingTrustEvaluator(policy, cache: cache)
    guard await cached.evaluate(trust, forHost: host).isTrusted else { fatalError("the policy refused the bench chain") }
    // The cache keeps its evaluator wrapped once, as CachingTrustEvaluator does.
    let wrapped = AnyServerTrustEvaluator(policy)
    guard let key = DecisionCacheKey(trust: trust, host: host, evaluator: wrapped) else { fatalError("no key") }
    let whole = await meanTime(200_000) {
        let decision = await cached.evaluate(trust, forHost: host)
        precondition(decision.isTrusted)
    }
    print("warm CachingTrustEvaluator.evaluate:", microseconds(whole))
    let making = await meanTime(200_000) { precondition(DecisionCacheKey(trust: trust, host: host, evaluator: wrapped) != nil) }
    print("  making the key:", microseconds(making))
    let hashing = await meanTime(200_000) { precondition(key.hashValue != 0) }
    print("  hashing it:", microseconds(hashing))
    let comparing = await meanTime(200_000) { precondition(key == key) }
    print("  comparing it with an equal key:", microseconds(comparing))
    let lookup = await meanTime(200_000) { precondition(cache.cachedDecision(for: key) != nil) }
    print("  the lookup (lock, hash, compare, expiry):", microseconds(lookup))
}

await Task.detached {
    print("\(algorithm == .p256 ? "P-256" : "RSA-2048") chain of three certificates")
    if CommandLine.arguments.contains("warm") {
        await profileWarm()
        return
    }
    let floor = await meanTime {
        precondition(intermediate.certificate.publicKey.isValidSignature(leaf.certificate.signature, for: leaf.certificate))
        precondition(root.certificate.publicKey.isValidSignature(intermediate.certificate.signature, for: intermediate.certificate))
    }
    print("the two signature checks alone:", microseconds(floor))

    var ours: [Duration] = [], stock: [Duration] = []
    for _ in 0..<15 {
        ours.append(await meanTime(1_000, coldEvaluation))
        stock.append(await meanTime(1_000, stockValidation))
    }
    let (oursMedian, stockMedian) = (ours.sorted()[7], stock.sorted()[7])
    print("stock Verifier.validate (median of 15 rounds):", microseconds(stockMedian))
    print("cold SecurityPolicy.evaluate (same rounds):", microseconds(oursMedian), String(format: "ratio %.2f×", oursMedian / stockMedian))

    let path = await benchPath()
    let policies: [(String, any FailureReportingPolicy)] = [
        ("MaximumPathLengthPolicy", MaximumPathLengthPolicy(maximumLength: 10)),
        ("ValidityPeriodPolicy", ValidityPeriodPolicy(validationTime: pki.now)),
        ("CertificateVersionPolicy", CertificateVersionPolicy()),
        ("IssuerBasicConstraintsPolicy", IssuerBasicConstraintsPolicy()),
        ("IssuerKeyUsagePolicy", IssuerKeyUsagePolicy()),
        ("KeyIdentifierPolicy", KeyIdentifierPolicy()),
        ("SubjectNamePolicy", SubjectNamePolicy()),
        ("SubjectAltNameSyntaxPolicy", SubjectAltNameSyntaxPolicy()),
        ("SerialNumberPolicy", SerialNumberPolicy()),
        ("AuthorityInformationAccessPolicy", AuthorityInformationAccessPolicy()),
        ("PublicKeySizePolicy", PublicKeySizePolicy()),
        ("NameConstraintsPolicy", NameConstraintsPolicy(host: ServerHost(host))),
        ("EndEntityLeafPolicy", EndEntityLeafPolicy()),
        ("ExtendedKeyUsagePolicy", ExtendedKeyUsagePolicy.serverAuthentication),
        ("CommonNamePolicy", CommonNamePolicy()),
        ("SubjectAltNameHostPolicy", SubjectAltNameHostPolicy(host: ServerHost(host))),
    ]
    let making = await meanTime { _ = CertificatePath(path) }
    print("making the shared CertificatePath:", microseconds(making))
    for (name, policy) in policies {
        let alone = await meanTime { precondition(policy.failures(in: CertificatePath(path)).isEmpty) }
        print("  \(name), alone (decoding what it reads):", microseconds(alone - making))
    }
    let all = await meanTime {
        let shared = CertificatePath(path)
        for (_, policy) in policies { precondition(policy.failures(in: shared).isEmpty) }
    }
    print("every policy on one shared path:", microseconds(all))
}.value
