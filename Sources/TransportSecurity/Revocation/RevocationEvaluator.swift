@_spi(FixedExpiryValidationTime) import X509
import Foundation
import SwiftASN1

/// Adds revocation checking to another evaluator: the other evaluator decides first and its
/// rejection stands; then every certificate of the validated path but the anchor is checked
/// with CRLs and OCSP as a ``RevocationPolicy`` says. A revoked certificate is always refused;
/// what happens without an answer is the policy's failure mode. OCSP responses are checked by
/// swift-certificates' `OCSPVerifierPolicy` (signature, responder, times, certificate ID).
public struct RevocationEvaluator: ServerTrustEvaluating {
    /// What `decidedBy` says when revocation rejects a server.
    public static let decider = "revocation"

    /// The evaluator that decides first.
    public let base: AnyServerTrustEvaluator
    /// The policy.
    public let policy: RevocationPolicy
    /// Where OCSP responses and distribution-point CRLs come from; without one, only the
    /// policy's own CRLs are used.
    public let fetcher: (any RevocationFetching)?

    /// Creates the evaluator.
    public init(_ base: some ServerTrustEvaluating, policy: RevocationPolicy, fetcher: (any RevocationFetching)? = nil) {
        self.base = AnyServerTrustEvaluator(base)
        self.policy = policy
        self.fetcher = fetcher
    }

    /// Equal when the base, the policy and the fetcher (the same object) are.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.base == rhs.base && lhs.policy == rhs.policy && lhs.fetcher.map(ObjectIdentifier.init) == rhs.fetcher.map(ObjectIdentifier.init)
    }

    /// Hashes the base, the policy and the fetcher's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(base)
        hasher.combine(policy)
        hasher.combine(fetcher.map(ObjectIdentifier.init))
    }

    /// What was found for one certificate.
    enum Status {
        case good(String)
        case revoked(String)
        case noAnswer(String)
    }

    /// The base decision, then revocation.
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        let decision = await base.evaluate(trust, forHost: host)
        guard decision.isTrusted else { return decision }
        let path = decision.checkedPath(of: trust)
        let time = trust.evaluationTime ?? Date()
        let networkAllowed = !policy.options.contains(.networkAccessDisabled)
        var checks = decision.checks
        func reject(_ reason: String) -> TrustDecision {
            checks.append(TrustCheck(name: "revocation", passed: false, detail: reason))
            return TrustDecision(isTrusted: false, decidedBy: Self.decider, reason: reason, checks: checks)
        }
        guard path.count >= 2 else { return decision }
        // The anchor is trusted as it is; with leafOnly, so are the intermediates.
        let checked = policy.options.contains(.leafOnly) ? [path[0]] : Array(path.dropLast())

        // CRLs first when preferred or when they are the only method; OCSP for the rest.
        var statuses: [Status?] = Array(repeating: nil, count: checked.count)
        let crlFirst = policy.options.contains(.crl) && (policy.options.contains(.preferCRL) || !policy.options.contains(.ocsp))
        if crlFirst {
            for index in checked.indices { statuses[index] = await crlStatus(of: checked[index], issuer: path[index + 1], at: time, networkAllowed: networkAllowed) }
        }
        if policy.options.contains(.ocsp) {
            let pending = Set(checked.indices.filter { index in
                if case .good = statuses[index] { return false }
                if case .revoked = statuses[index] { return false }
                return true
            }.map { checked[$0].certificate.serialNumber })
            let answers = OCSPAnswers()
            if let failure = await ocspFailure(path: path, pending: pending, answers: answers, time: time, networkAllowed: networkAllowed) {
                return reject("OCSP: \(failure)")
            }
            for index in checked.indices where pending.contains(checked[index].certificate.serialNumber) {
                statuses[index] = answers.answered(checked[index].certificate.serialNumber)
                    ? .good("OCSP")
                    : .noAnswer(answers.error(checked[index].certificate.serialNumber) ?? "no OCSP responder")
            }
        }
        if policy.options.contains(.crl), !crlFirst {
            for index in checked.indices {
                if case .good = statuses[index] { continue }
                let crl = await crlStatus(of: checked[index], issuer: path[index + 1], at: time, networkAllowed: networkAllowed)
                if case .noAnswer(let crlReason) = crl, case .noAnswer(let ocspReason) = statuses[index] {
                    statuses[index] = .noAnswer("\(ocspReason); \(crlReason)")
                } else {
                    statuses[index] = crl
                }
            }
        }

        var details: [String] = []
        for (certificate, status) in zip(checked, statuses) {
            switch status {
            case .revoked(let detail)?:
                return reject("\(certificate.subjectSummary) is revoked (\(detail))")
            case .good(let source)?:
                details.append("\(certificate.subjectSummary): not revoked (\(source))")
            case .noAnswer(let why)?:
                if policy.failureMode == .hard {
                    return reject("no current revocation answer for \(certificate.subjectSummary) and a positive answer is required (hard-fail): \(why)")
                }
                details.append("\(certificate.subjectSummary): no answer, allowed (soft-fail): \(why)")
            case nil:
                if policy.failureMode == .hard {
                    return reject("no revocation method applies to \(certificate.subjectSummary) and a positive answer is required (hard-fail)")
                }
                details.append("\(certificate.subjectSummary): not checked")
            }
        }
        checks.append(TrustCheck(name: "revocation", passed: true, detail: details.joined(separator: "; ")))
        return decision.stillTrusted(checks: checks)
    }

    /// The certificate's status from the policy's CRLs and its distribution points.
    private func crlStatus(of certificate: DERCertificate, issuer: DERCertificate, at time: Date, networkAllowed: Bool) async -> Status {
        var lists: [(CertificateRevocationList, String)] = policy.crls.filter { $0.issuer == certificate.certificate.issuer }.map { ($0, "a CRL of the policy") }
        var problems: [String] = []
        if let fetcher {
            for url in certificate.certificate.crlDistributionPointURLs {
                do {
                    lists.append((try CertificateRevocationList(bytes: try await fetcher.crl(at: url, networkAllowed: networkAllowed), source: url), url))
                } catch {
                    problems.append("CRL \(url): \(error)")
                }
            }
        }
        for (list, source) in lists {
            guard list.isSigned(by: issuer.certificate) else {
                problems.append("\(source) is not signed by \(issuer.subjectSummary)")
                continue
            }
            if let usage = try? issuer.certificate.extensions.keyUsage, !usage.cRLSign {
                problems.append("\(source) is signed by \(issuer.subjectSummary), whose key usage does not include cRLSign (RFC 5280 §6.3.3 f)")
                continue
            }
            guard list.nonConformities.isEmpty else {
                problems.append("\(source) is not used: \(list.nonConformities.joined(separator: "; "))")
                continue
            }
            guard list.unsupportedCriticalExtensions.isEmpty else {
                problems.append("\(source) has unsupported critical extensions \(list.unsupportedCriticalExtensions)")
                continue
            }
            guard list.isCurrent(at: time) else {
                problems.append("\(source) is not current (next update \(list.nextUpdate.map { $0.formatted(.iso8601) } ?? "none"))")
                continue
            }
            if let date = list.revocationDate(of: certificate.certificate.serialNumber) {
                return .revoked("listed in \(source) since \(date.formatted(.iso8601))")
            }
            return .good(source)
        }
        return .noAnswer(problems.isEmpty ? "no CRL" : problems.joined(separator: "; "))
    }

    /// Runs swift-certificates' OCSP policy over the path; the failure reason, if it fails.
    private func ocspFailure(path: [DERCertificate], pending: Set<Certificate.SerialNumber>, answers: OCSPAnswers, time: Date, networkAllowed: Bool) async -> String? {
        let requester = PolicyOCSPRequester(fetcher: fetcher, pending: pending, answers: answers, networkAllowed: networkAllowed, hardFail: policy.failureMode == .hard)
        let critical = Set(path.flatMap { $0.certificate.extensions.filter(\.critical).map(\.oid) })
        var verifier = Verifier(rootCertificates: CertificateStore([path[path.count - 1].certificate])) {
            PathRevocationPolicy(
                verifyingCriticalExtensions: Array(critical),
                ocsp: OCSPVerifierPolicy(failureMode: policy.failureMode == .hard ? .hard : .soft, requester: requester, fixedExpiryValidationTime: time)
            )
        }
        let result = await verifier.validate(leaf: path[0].certificate, intermediates: CertificateStore(path.dropFirst().dropLast().map(\.certificate)))
        switch result {
        case .validCertificate: return nil
        case .couldNotValidate(let failures):
            return failures.map(\.policyFailureReason.description).joined(separator: "; ").nonEmpty ?? "the path could not be rebuilt for OCSP"
        }
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
