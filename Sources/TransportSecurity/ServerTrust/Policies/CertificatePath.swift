import X509

/// One candidate certification path as the ``FailureReportingPolicy`` policies read it: the
/// leaf first, the anchor last.
///
/// The server-trust engine makes one path per candidate the verifier proposes and hands the same
/// path to every policy, so each certificate is copied once and each extension is decoded at
/// most once for all of them (see ``PathCertificate``).
///
/// A path is read by one evaluation on one thread; it is deliberately not `Sendable`.
public struct CertificatePath: RandomAccessCollection {
    /// The certificates, leaf first.
    public let certificates: [PathCertificate]

    /// The path swift-certificates' verifier proposes.
    public init(_ chain: UnverifiedCertificateChain) {
        self.certificates = chain.map(PathCertificate.init)
    }

    /// The leaf, the certificate the path was built for.
    public var leaf: PathCertificate { certificates[certificates.startIndex] }

    /// The first index.
    public var startIndex: Int { certificates.startIndex }

    /// One past the anchor's index.
    public var endIndex: Int { certificates.endIndex }

    /// The certificate at `position`.
    public subscript(position: Int) -> PathCertificate { certificates[position] }
}

@available(*, unavailable)
extension CertificatePath: Sendable {}
