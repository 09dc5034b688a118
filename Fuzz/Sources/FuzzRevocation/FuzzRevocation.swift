import Dispatch
import Foundation
import FuzzDriver
import PKIBuilder
import TransportSecurity
import X509

/// Bytes from the network as a CRL and as an OCSP response: they parse or are refused, read
/// consistently, and, handed to a `RevocationEvaluator` as every OCSP response and CRL it
/// fetches for a chain whose CA key the fuzzer does not have, never show the leaf to be
/// unrevoked: hard-fail always refuses it, soft-fail lets it through provisionally unless the
/// bytes claim it is revoked.
func fuzzRevocation(_ input: UnsafeRawBufferPointer) {
    let bytes = Array(input)
    if let list = try? CertificateRevocationList(bytes: bytes) {
        precondition(list.isCurrent(at: list.thisUpdate) == (list.nextUpdate.map { $0 >= list.thisUpdate } ?? true), "isCurrent disagrees with the list's own dates")
        for (serial, date) in list.revoked { precondition(list.revocationDate(of: serial) == date, "a revoked serial is not found") }
        precondition((try? CertificateRevocationList(bytes: list.derBytes)) == list, "a list does not read back from its own DER")
        if let scope = list.issuingDistributionPoint, let leaf = try? Certificate(derEncoded: chain.leaf) {
            // A scope this library cannot follow never covers a certificate.
            let unfollowable = scope.isIndirect || scope.coversSomeReasonsOnly || scope.onlyContainsAttributeCertificates || scope.isNamedRelativeToIssuer
            precondition(!unfollowable || scope.scopeProblem(for: leaf) != nil, "a scope that cannot be followed covered the leaf")
        }
    }
    let singles = OCSPMessageSummary.singleResponses(inResponse: bytes)
    let lifetime = OCSPMessageSummary.lifetime(ofResponse: bytes)
    precondition((singles == nil) == (lifetime == nil), "the lifetime and the single responses disagree on what a response is")
    if let singles, let lifetime {
        let dates = singles.compactMap(\.nextUpdate)
        let expected = dates.count == singles.count ? dates.min() : nil
        precondition(lifetime.nextUpdate == expected, "the lifetime is not the earliest nextUpdate")
        for single in singles {
            precondition(OCSPMessageSummary.singleResponse(for: single.certificateID, inResponse: bytes) != nil, "a single response is not found by its CertID")
        }
    }
    _ = try? OCSPMessageSummary.certificateIDs(inRequest: bytes)

    let fetcher = FixedAnswerFetcher(answer: bytes)
    let hard = evaluate(RevocationPolicy(options: [.ocsp, .crl, .leafOnly], failureMode: .hard), fetcher: fetcher)
    precondition(!hard.isTrusted, "hard-fail trusted a leaf on answers nobody with the CA's key made: \(hard.checks.last?.detail ?? "")")
    let soft = evaluate(RevocationPolicy(options: [.ocsp, .crl, .leafOnly], failureMode: .soft), fetcher: fetcher)
    let detail = soft.checks.last?.detail ?? ""
    precondition(!detail.contains("not revoked"), "an answer nobody with the CA's key made showed the leaf unrevoked: \(detail)")
    precondition(soft.isTrusted ? soft.isProvisional : soft.reason.contains("is revoked"), "soft-fail: \(soft.reason)")
}

/// Answers every OCSP request and CRL fetch with the same bytes.
final class FixedAnswerFetcher: RevocationFetching {
    let answer: [UInt8]
    init(answer: [UInt8]) { self.answer = answer }
    func ocspResponse(request: [UInt8], responderURL: String, networkAllowed: Bool) async throws -> [UInt8] { answer }
    func crl(at url: String, networkAllowed: Bool) async throws -> [UInt8] { answer }
}

/// A chain made once, kept as DER only (no key outlives the set-up): a leaf naming an OCSP
/// responder and a CRL distribution point, its intermediate, and the root. RSA keys, whose
/// signatures are checked many times faster than ECDSA's under AddressSanitizer.
private let chain: (leaf: [UInt8], intermediate: [UInt8], root: [UInt8], host: String, time: Date) = {
    guard let lab = try? TrustLab(algorithm: .rsa2048),
        let leaf = try? lab.pki.issue(
            CertificateProfile.server(lab.host).pointingTo(ocsp: "http://ocsp.example.test/", crl: "http://crl.example.test/ca.crl"),
            by: lab.intermediate
        )
    else { preconditionFailure("the fuzz chain cannot be made") }
    return (leaf.der.derBytes, lab.intermediate.der.derBytes, lab.root.der.derBytes, lab.host, lab.pki.now)
}()

/// The evaluator's decision on the fixed chain, waited for.
private func evaluate(_ policy: RevocationPolicy, fetcher: FixedAnswerFetcher) -> TrustDecision {
    guard let leaf = try? DERCertificate(derBytes: chain.leaf), let intermediate = try? DERCertificate(derBytes: chain.intermediate),
        let root = try? DERCertificate(derBytes: chain.root)
    else { preconditionFailure("the fuzz chain does not parse") }
    let trust = ServerTrust(chain: [leaf, intermediate], policy: .ssl(chain.host), systemStore: TrustStore([root]), evaluationTime: chain.time)
    let result = DecisionBox()
    let done = DispatchSemaphore(value: 0)
    Task {
        result.decision = await RevocationEvaluator(SecurityPolicy.default, policy: policy, fetcher: fetcher).evaluate(trust, forHost: chain.host)
        done.signal()
    }
    done.wait()
    guard let decision = result.decision else { preconditionFailure("no decision") }
    return decision
}

/// Carries a decision out of its task.
private final class DecisionBox: @unchecked Sendable {
    var decision: TrustDecision?
}

@main
enum FuzzRevocationMain {
    static func main() { runFuzzer(fuzzRevocation) }
}
