/// What a server-trust evaluation takes from outside the chain and the anchors: the public
/// suffix list that bounds wildcard names, and whether SHA-1 signatures are allowed (they are
/// not, unless a private PKI that cannot be re-issued forces it).
///
/// ```swift
/// var options = TrustEvaluationOptions()
/// options.publicSuffixes = try PublicSuffixList(contentsOf: "public_suffix_list.dat")   // a newer list
/// let trust = ServerTrust(chain: presented, policy: .ssl("api.example.com"), options: options)
/// ```
public struct TrustEvaluationOptions: Sendable, Hashable, CustomStringConvertible {
    /// The list whose ICANN section bounds certificate wildcards (`*.co.uk` matches nothing,
    /// `*.s3.amazonaws.com` matches `bucket.s3.amazonaws.com`); the snapshot compiled into the
    /// library by default, so that a certificate gets the same answer on every machine.
    public var publicSuffixes: PublicSuffixList
    /// Accept certificates signed with SHA-1 (`sha1WithRSAEncryption`) on the path. **Insecure**:
    /// SHA-1 collisions are practical (SHAttered, 2017; a chosen-prefix collision, 2020), so a
    /// certificate signed with it can be forged; Apple, Chrome, Firefox and Go refuse them. Only
    /// for a private PKI that still issues them, until it is re-issued. MD5 is never accepted.
    /// Default `false`.
    public var insecurelyAllowsSHA1Signatures: Bool

    /// Creates options.
    /// - Parameters:
    ///   - publicSuffixes: See ``publicSuffixes``.
    ///   - insecurelyAllowsSHA1Signatures: See ``insecurelyAllowsSHA1Signatures``.
    public init(publicSuffixes: PublicSuffixList = .bundled, insecurelyAllowsSHA1Signatures: Bool = false) {
        self.publicSuffixes = publicSuffixes
        self.insecurelyAllowsSHA1Signatures = insecurelyAllowsSHA1Signatures
    }

    /// The defaults: the compiled-in public suffix list, no SHA-1.
    public static let `default` = TrustEvaluationOptions()

    /// `public suffix list 2023-02-09, SHA-1 refused`.
    public var description: String {
        "public suffix list \(publicSuffixes.version), SHA-1 " + (insecurelyAllowsSHA1Signatures ? "allowed (insecure)" : "refused")
    }
}
