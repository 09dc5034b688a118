import X509

/// Says why no candidate path reached an anchor, which swift-certificates' `Verifier` reports
/// only as an empty list: the chain ends at an untrusted self-signed root, an issuer is missing,
/// a signature does not verify, or an issuer carries an unprocessed critical extension.
struct UnbuildablePathDiagnosis {
    let chain: [DERCertificate]
    let anchors: TrustStore
    let limits: PathBuildingLimits

    func explain() -> TrustFailure {
        guard var tip = chain.first else {
            return TrustFailure(.emptyChain, detail: "the server presented no certificate")
        }
        var visited: Set<DERCertificate> = [tip]
        let pool = chain + anchors.certificates
        for _ in 0..<limits.maximumPathLength {
            let issuerName = tip.certificate.issuer
            let candidates = pool.filter { $0.certificate.subject == issuerName && !visited.contains($0) }
            guard !candidates.isEmpty else {
                if tip.certificate.subject == issuerName {
                    return TrustFailure(
                        .untrustedRoot,
                        certificate: tip.subjectSummary,
                        detail: "is a self-signed certificate that is not among the trusted anchors (\(anchors))"
                    )
                }
                return TrustFailure(
                    .missingIssuer,
                    certificate: tip.subjectSummary,
                    detail: "was issued by \(issuerName), which is neither presented nor a trusted anchor (\(anchors))"
                )
            }
            guard let signer = candidates.first(where: { $0.certificate.publicKey.isValidSignature(tip.certificate.signature, for: tip.certificate) }) else {
                // swift-certificates verifies no MD5 or ECDSA-with-SHA-1 signature: say that the
                // algorithm, not the key, is why.
                if !SignatureHashPolicy.strongAlgorithms.contains(tip.certificate.signatureAlgorithm) {
                    return TrustFailure(
                        .weakSignature,
                        certificate: tip.subjectSummary,
                        detail: "is signed with \(tip.signatureAlgorithmName), which is refused: only SHA-256 or better, and Ed25519, are accepted (MD5 and SHA-1 signatures can be forged)"
                    )
                }
                return TrustFailure(
                    .badSignature,
                    certificate: tip.subjectSummary,
                    detail: "has a signature that does not verify with the key of its issuer \(issuerName)"
                )
            }
            if anchors.contains(signer) {
                return TrustFailure(
                    .unhandledCriticalExtension,
                    certificate: signer.subjectSummary,
                    detail: "signs the chain but could not be used as its issuer (an unprocessed critical extension, or a repeated certificate)"
                )
            }
            visited.insert(signer)
            tip = signer
        }
        return TrustFailure(
            .pathTooLong,
            certificate: chain.first?.subjectSummary,
            detail: "no path of at most \(limits.maximumPathLength) certificates reaches a trusted anchor"
        )
    }
}
