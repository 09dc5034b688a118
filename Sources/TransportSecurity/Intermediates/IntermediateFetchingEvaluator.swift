import Foundation
import X509

/// Completes a chain that a server sent without its intermediate certificates, as Apple's
/// SecTrust does when network fetches are allowed: when `base` rejects the server because a
/// certificate's issuer is neither presented nor an anchor, the certificates named by that
/// certificate's authority-information-access `caIssuers` URL are fetched (DER, a PKCS#7
/// bundle, or PEM), and `base` decides again on the chain with them added after the presented
/// ones. A fetched certificate proves nothing by being fetched: it counts only where the path
/// validation of `base` checks its signature like any presented certificate's.
///
/// Fetching follows issuers up to ``maximumFetches`` URLs per evaluation (a fetched
/// intermediate may lack its own issuer). Each URL asked and what it gave are in the decision's
/// checks. The URLs come from the server's certificates: give the fetcher a session of its own,
/// and weigh that a hostile server can make the client ask a URL of its choosing (as with
/// revocation, which is why this evaluator is not in force unless composed in).
public struct IntermediateFetchingEvaluator: ServerTrustEvaluating {
    /// The evaluator that decides, before and after the fetch.
    public let base: AnyServerTrustEvaluator
    /// Where issuer certificates come from.
    public let fetcher: any IssuerCertificateFetching
    /// The most `caIssuers` URLs asked per evaluation.
    public let maximumFetches: Int

    /// Creates the evaluator; at most `maximumFetches` URLs (4 by default) are asked per
    /// evaluation.
    public init(_ base: some ServerTrustEvaluating, fetcher: any IssuerCertificateFetching, maximumFetches: Int = 4) {
        self.base = AnyServerTrustEvaluator(base)
        self.fetcher = fetcher
        self.maximumFetches = max(0, maximumFetches)
    }

    /// Equal when the base, the bound and the fetcher (the same object) are.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.base == rhs.base && lhs.maximumFetches == rhs.maximumFetches && lhs.fetcher === rhs.fetcher
    }

    /// Hashes the base, the bound and the fetcher's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(base)
        hasher.combine(maximumFetches)
        hasher.combine(ObjectIdentifier(fetcher))
    }

    /// `base`'s decision; when it rejects the server for a missing issuer, its decision on the
    /// chain completed with the issuers fetched.
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        let decision = await base.evaluate(trust, forHost: host)
        guard !decision.isTrusted, Self.lacksIssuer(decision) else { return decision }
        let anchors = (try? trust.effectiveAnchors()) ?? .empty
        var chain = trust.chain
        var fetches: [TrustCheck] = []
        var asked: Set<String> = []
        while asked.count < maximumFetches {
            let urls = Self.issuerURLs(missingFrom: chain, anchors: anchors).filter { !asked.contains($0) }
            guard !urls.isEmpty else { break }
            let before = chain.count
            for url in urls.prefix(maximumFetches - asked.count) {
                asked.insert(url)
                fetches.append(await fetch(url, into: &chain))
            }
            if chain.count == before { break }
        }
        guard chain.count > trust.chain.count else {
            let why = fetches.isEmpty
                ? "no certificate without its issuer names a caIssuers URL (http or https) to fetch it from"
                : "no issuer certificate could be fetched (" + fetches.map { "\($0.name): \($0.detail)" }.joined(separator: "; ") + ")"
            return TrustDecision(
                isTrusted: false, decider: decision.decider, rule: decision.rule, reason: decision.reason + "; " + why,
                checks: decision.checks + fetches, pinMismatch: decision.pinMismatch,
                reusableUntil: decision.reusableUntil, isProvisional: decision.isProvisional
            )
        }
        var completed = trust
        completed.chain = chain
        let second = await base.evaluate(completed, forHost: host)
        return second.relabeled(decider: second.decider, checks: fetches + second.checks)
    }

    /// Fetches `url` and appends the certificates it gives that `chain` lacks; the check says
    /// what came or why nothing did.
    private func fetch(_ url: String, into chain: inout [DERCertificate]) async -> TrustCheck {
        let name = "issuer certificate from \(url)"
        do {
            let bytes = try await fetcher.issuerCertificates(at: url)
            let fetched = try CertificateLoader.certificates(from: bytes, source: url)
            let new = fetched.filter { !chain.contains($0) }
            chain += new
            let detail = new.isEmpty
                ? "nothing the chain lacked"
                : "fetched " + new.map(\.subjectSummary).joined(separator: ", ")
            return TrustCheck(name: name, passed: !new.isEmpty, detail: detail)
        } catch {
            return TrustCheck(name: name, passed: false, detail: String(describing: error))
        }
    }

    /// Whether a validation behind `decision` failed for a missing issuer.
    static func lacksIssuer(_ decision: TrustDecision) -> Bool {
        decision.checks.contains { check in
            check.evaluation?.failures.contains { $0.code == .missingIssuer } == true
        }
    }

    /// The `caIssuers` URLs (http and https, in chain order, each once) of the certificates of
    /// `chain` whose issuer is neither in `chain` nor among `anchors` (self-issued ones have none
    /// to find).
    static func issuerURLs(missingFrom chain: [DERCertificate], anchors: TrustStore) -> [String] {
        var urls: [String] = []
        for member in chain {
            let certificate = member.certificate
            guard certificate.issuer != certificate.subject,
                !chain.contains(where: { $0.certificate.subject == certificate.issuer }),
                anchors.index.certificates(named: certificate.issuer) == nil
            else { continue }
            for url in member.issuerCertificateURLs where isFetchable(url) && !urls.contains(url) { urls.append(url) }
        }
        return urls
    }

    /// Whether `url` is an `http` or `https` URL, the ones asked for issuer certificates.
    public static func isFetchable(_ url: String) -> Bool {
        let scheme = url.prefix { $0 != ":" }.lowercased()
        return scheme == "http" || scheme == "https"
    }
}
