/// The certificates of a chain that did not validate which a pin may still match: the leaf, and
/// the presented certificates *signature-linked* above it.
///
/// The TLS handshake proves only that the server holds the leaf's key. A certificate above the
/// leaf proves something only when it signed the certificate below it: starting from the leaf,
/// the next is the presented certificate whose subject is the current one's issuer and whose
/// key verifies the current one's signature (SHA-256 or better), and so on up to a self-signed
/// certificate. Dates and anchors are not checked (nothing was validated), and the walk is
/// bounded. Every other presented certificate counts for nothing: an attacker who sends
/// `[own leaf, the genuine pinned certificate]` has the genuine certificate ignored, not
/// matched. AFNetworking matched pins against every presented certificate here, and is open
/// to exactly that.
struct SignatureLinkedChain {
    /// The leaf, then each certificate that signed the one before it.
    let certificates: [DERCertificate]
    /// Presented certificates that no signature links to the leaf (they count for nothing).
    let unlinked: [DERCertificate]

    /// Walks `chain` from its leaf.
    /// - Parameters:
    ///   - chain: The presented chain, leaf first.
    ///   - options: Whether a SHA-1 signature may link two certificates.
    ///   - limits: The walk holds at most `maximumPathLength` certificates and checks at most
    ///     four signatures per certificate it may hold, however many certificates name the same
    ///     issuer (a hostile chain costs milliseconds, not seconds).
    init(_ chain: [DERCertificate], options: TrustEvaluationOptions, limits: PathBuildingLimits) {
        guard let leaf = chain.first else {
            certificates = []
            unlinked = []
            return
        }
        var linked = [leaf]
        var remaining = Array(chain.dropFirst())
        var signatureChecks = 4 * limits.maximumPathLength
        var current = leaf
        walk: while linked.count < limits.maximumPathLength, current.certificate.issuer != current.certificate.subject {
            for (index, candidate) in remaining.enumerated() where candidate.certificate.subject == current.certificate.issuer {
                guard signatureChecks > 0 else { break walk }
                signatureChecks -= 1
                if Self.signs(candidate, current, options: options) {
                    linked.append(candidate)
                    remaining.remove(at: index)
                    current = candidate
                    continue walk
                }
            }
            break
        }
        certificates = linked
        unlinked = remaining.filter { !linked.contains($0) }
    }

    /// Whether `issuer`'s key verifies `certificate`'s signature, made with an accepted hash.
    private static func signs(_ issuer: DERCertificate, _ certificate: DERCertificate, options: TrustEvaluationOptions) -> Bool {
        let algorithm = certificate.certificate.signatureAlgorithm
        let acceptedHash = SignatureHashPolicy.strongAlgorithms.contains(algorithm)
            || (options.insecurelyAllowsSHA1Signatures && algorithm == .sha1WithRSAEncryption)
        return acceptedHash && issuer.certificate.publicKey.isValidSignature(certificate.certificate.signature, for: certificate.certificate)
    }

    /// The check a decision records: what was considered and what was not.
    var check: TrustCheck {
        let names = certificates.map(\.subjectSummary).joined(separator: " → ")
        var detail = "the chain did not validate, so only the leaf and the certificates signature-linked above it count: \(names)"
        if !unlinked.isEmpty {
            let one = unlinked.count == 1
            detail += "; \(one ? "one other presented certificate counts" : "\(unlinked.count) other presented certificates count") for nothing, no signature linking \(one ? "it" : "them") to the leaf: \(unlinked.map(\.subjectSummary).joined(separator: ", "))"
        }
        return TrustCheck(name: "certificates considered for the pins", passed: true, detail: detail)
    }
}

extension ServerTrust {
    /// The leaf and the presented certificates signature-linked above it.
    var signatureLinkedChain: SignatureLinkedChain { SignatureLinkedChain(chain, options: options, limits: limits) }
}
