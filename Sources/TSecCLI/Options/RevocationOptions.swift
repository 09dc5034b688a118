import ArgumentParser
import SecureSession
import TransportSecurity

/// `tsec get`'s revocation checking, made into a `RevocationEvaluator` around the command's own
/// evaluator: curl's `--crlfile` (the leaf against CRLs from files, no network), and
/// `--revocation soft|hard` (every certificate but the anchor, over the network).
struct RevocationOptions: ParsableArguments {
    /// What `--revocation` does without an answer.
    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case soft, hard

        var failureMode: RevocationPolicy.FailureMode { self == .hard ? .hard : .soft }
    }

    @Option(name: .customLong("crlfile"), help: ArgumentHelp(
        "CRLs (DER, or PEM with any number of X509 CRL blocks) the server's leaf is checked against, as curl's --crlfile: a leaf they list is refused (exit 1), and so is a leaf whose issuer has no current CRL among them (OpenSSL's CRL check). With --revocation, they are used before anything fetched, for every certificate they cover. Repeatable.",
        valueName: "FILE"
    ))
    var crlFiles: [String] = []

    @Option(name: .customLong("revocation"), help: ArgumentHelp(
        "Check every certificate of the validated path but the anchor for revocation over the network: its OCSP responder first, then its CRL distribution points (through a session of their own, with the same proxies). 'soft' lets a certificate through when no current answer can be had; 'hard' refuses it. A revoked certificate is refused either way (exit 1); -v and --json show what was asked and answered.",
        valueName: "soft|hard"
    ))
    var mode: Mode?

    /// The CRLs of `--crlfile`, read now so that an unreadable file is a usage error.
    func loadLists() throws -> [CertificateRevocationList] {
        try crlFiles.flatMap { file throws(RevocationError) in try CertificateRevocationList.lists(contentsOfFile: file) }
    }

    /// Whether `--revocation` asks for answers from the network.
    var fetches: Bool { mode != nil }

    /// `evaluator` with revocation checked after it, or `evaluator` itself without these options.
    /// - Parameters:
    ///   - lists: The CRLs of ``loadLists()``.
    ///   - fetcher: Where OCSP responses and CRLs come from with `--revocation`.
    func evaluator(
        around evaluator: AnyServerTrustEvaluator,
        lists: [CertificateRevocationList],
        fetcher: SessionRevocationFetcher?
    ) -> AnyServerTrustEvaluator {
        if let mode {
            let policy = RevocationPolicy(options: .useAnyAvailable, failureMode: mode.failureMode, crls: lists)
            return AnyServerTrustEvaluator(RevocationEvaluator(evaluator, policy: policy, fetcher: fetcher))
        }
        guard !lists.isEmpty else { return evaluator }
        // curl's --crlfile is OpenSSL's X509_V_FLAG_CRL_CHECK: the leaf, from these lists alone.
        let policy = RevocationPolicy(options: [.crl, .leafOnly, .networkAccessDisabled], failureMode: .hard, crls: lists)
        return AnyServerTrustEvaluator(RevocationEvaluator(evaluator, policy: policy))
    }
}
