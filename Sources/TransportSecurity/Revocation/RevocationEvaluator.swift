import Foundation
import X509

/// Adds revocation checking to another evaluator: the other evaluator decides first and its
/// rejection stands; then every certificate of the validated path but the anchor is checked
/// with CRLs and OCSP as a ``RevocationPolicy`` says, each method in turn until one gives a
/// current answer. A revoked certificate is always refused; what happens without an answer is
/// the policy's failure mode. OCSP responses are checked by swift-certificates'
/// `OCSPVerifierPolicy` (signature, responder, times, certificate ID, nonce): a response that
/// does not verify, or says `unknown`, is no answer, so the next method is still asked.
///
/// A trusted decision carries how long its answers hold: ``TrustDecision/reusableUntil`` is the
/// earliest `nextUpdate` among them, and a decision that let a certificate through without an
/// answer (soft-fail) is ``TrustDecision/isProvisional``, so that a ``DecisionCache`` asks again
/// soon instead of reusing it for an hour.
public struct RevocationEvaluator: ServerTrustEvaluating {
    /// The ``TrustDecision/decider`` of a decision where revocation rejects a server.
    public static let decider = TrustDecision.Decider.revocation

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
        /// Not revoked, by `source`, on an answer current until `until` (`nil`: no end given).
        case good(source: String, until: Date?)
        case revoked(String)
        case noAnswer(String)
    }

    /// The ways of asking.
    private enum Method {
        case ocsp, crl
    }

    /// The methods of the policy, in the order they are asked.
    private var methods: [Method] {
        var methods: [Method] = []
        if policy.options.contains(.ocsp) { methods.append(.ocsp) }
        if policy.options.contains(.crl) {
            if policy.options.contains(.preferCRL) { methods.insert(.crl, at: 0) } else { methods.append(.crl) }
        }
        return methods
    }

    /// The base decision, then revocation: each certificate is put to the methods in order until
    /// one answers; a revocation refuses the server at once.
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        let decision = await base.evaluate(trust, forHost: host)
        guard decision.isTrusted else { return decision }
        let path = decision.checkedPath(of: trust)
        let time = trust.evaluationTime ?? Date()
        let networkAllowed = !policy.options.contains(.networkAccessDisabled)
        var checks = decision.checks
        func reject(_ reason: String) -> TrustDecision {
            checks.append(TrustCheck(name: "revocation", passed: false, detail: reason))
            return TrustDecision(isTrusted: false, decider: Self.decider, reason: reason, checks: checks)
        }
        guard path.count >= 2 else { return decision }
        // The anchor is trusted as it is; with leafOnly, so are the intermediates.
        let checked = policy.options.contains(.leafOnly) ? [path[0]] : Array(path.dropLast())
        let ocsp = OCSPPathCheck(path: path, fetcher: fetcher, networkAllowed: networkAllowed, time: time)

        var statuses: [Status?] = Array(repeating: nil, count: checked.count)
        for method in methods {
            for index in checked.indices {
                if case .good? = statuses[index] { continue }
                let found: Status
                switch method {
                case .crl: found = await crlStatus(of: checked[index], issuer: path[index + 1], at: time, networkAllowed: networkAllowed)
                case .ocsp: found = await ocsp.status(ofCertificateAt: index)
                }
                switch (statuses[index], found) {
                case (_, .revoked(let detail)):
                    return reject("\(checked[index].subjectSummary) is revoked (\(detail))")
                case (.noAnswer(let earlier)?, .noAnswer(let reason)):
                    statuses[index] = .noAnswer("\(earlier); \(reason)")
                default:
                    statuses[index] = found
                }
            }
        }

        var details: [String] = []
        var reusableUntil: Date?
        var provisional = false
        for (certificate, status) in zip(checked, statuses) {
            switch status {
            case .revoked?:
                preconditionFailure("a revocation refuses the server as soon as it is found")
            case .good(let source, let until)?:
                details.append("\(certificate.subjectSummary): not revoked (\(source))" + (until.map { ", answer current until \($0.formatted(.iso8601))" } ?? ""))
                reusableUntil = TrustDecision.earlier(reusableUntil, until)
            case .noAnswer(let why)?:
                if policy.failureMode == .hard {
                    return reject("no current revocation answer for \(certificate.subjectSummary) and a positive answer is required (hard-fail): \(why)")
                }
                details.append("\(certificate.subjectSummary): no answer, allowed (soft-fail): \(why)")
                provisional = true
            case nil:
                if policy.failureMode == .hard {
                    return reject("no revocation method applies to \(certificate.subjectSummary) and a positive answer is required (hard-fail)")
                }
                details.append("\(certificate.subjectSummary): not checked")
            }
        }
        checks.append(TrustCheck(name: "revocation", passed: true, detail: details.joined(separator: "; ")))
        return decision.stillTrusted(checks: checks, reusableUntil: reusableUntil, provisional: provisional)
    }

    /// The certificate's status from the policy's CRLs and its distribution points. A fetched
    /// list that cannot be used is handed back to the fetcher to be dropped.
    private func crlStatus(of certificate: DERCertificate, issuer: DERCertificate, at time: Date, networkAllowed: Bool) async -> Status {
        // Each list with where it came from, and its URL when it was fetched.
        var lists: [(list: CertificateRevocationList, source: String, fetchedFrom: String?)] =
            policy.crls.filter { $0.issuer == certificate.certificate.issuer }.map { ($0, "a CRL of the policy", nil) }
        var problems: [String] = []
        if let fetcher {
            for url in certificate.certificate.crlDistributionPointURLs {
                do {
                    lists.append((try CertificateRevocationList(bytes: try await fetcher.crl(at: url, networkAllowed: networkAllowed), source: url), url, url))
                } catch {
                    problems.append("CRL \(url): \(error)")
                }
            }
        }
        // Every usable list is read: one that lists the certificate wins over any that does not
        // (an application's file may be older than the list at the distribution point).
        var usable: [(source: String, nextUpdate: Date?)] = []
        for (list, source, fetchedFrom) in lists {
            if let problem = Self.problem(with: list, from: source, covering: certificate.certificate, issuer: issuer, at: time) {
                problems.append(problem)
                if let fetchedFrom { fetcher?.discardCRL(at: fetchedFrom) }
                continue
            }
            if let date = list.revocationDate(of: certificate.certificate.serialNumber) {
                return .revoked("listed in \(source) since \(date.formatted(.iso8601))")
            }
            usable.append((source, list.nextUpdate))
        }
        guard let first = usable.first else {
            return .noAnswer(problems.isEmpty ? "no CRL" : problems.joined(separator: "; "))
        }
        let until = usable.dropFirst().reduce(first.nextUpdate) { TrustDecision.earlier($0, $1.nextUpdate) }
        let sources = usable.map(\.source).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        return .good(source: sources.joined(separator: ", "), until: until)
    }

    /// Why `list` cannot answer for `certificate` of `issuer` at `time`; `nil` when it can.
    private static func problem(
        with list: CertificateRevocationList, from source: String, covering certificate: Certificate, issuer: DERCertificate, at time: Date
    ) -> String? {
        guard list.isSigned(by: issuer.certificate) else {
            return "\(source) is not signed by \(issuer.subjectSummary)"
        }
        if let usage = try? issuer.certificate.extensions.keyUsage, !usage.cRLSign {
            return "\(source) is signed by \(issuer.subjectSummary), whose key usage does not include cRLSign (RFC 5280 §6.3.3 f)"
        }
        guard list.nonConformities.isEmpty else {
            return "\(source) is not used: \(list.nonConformities.joined(separator: "; "))"
        }
        guard list.unsupportedCriticalExtensions.isEmpty else {
            return "\(source) has unsupported critical extensions \(list.unsupportedCriticalExtensions)"
        }
        guard list.isCurrent(at: time) else {
            return "\(source) is not current (next update \(list.nextUpdate.map { $0.formatted(.iso8601) } ?? "none"))"
        }
        if let scope = list.issuingDistributionPoint?.scopeProblem(for: certificate) {
            return "\(source) does not cover the certificate: \(scope)"
        }
        return nil
    }
}
