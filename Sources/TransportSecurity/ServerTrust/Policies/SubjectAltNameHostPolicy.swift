import SwiftASN1
import X509

/// The leaf's subjectAltName must name the host: a DNS name, or an IP address for an IP host.
///
/// DNS names compare case-insensitively. A wildcard is only a whole left-most label followed by
/// at least two labels (`*.example.com` matches `api.example.com`, not `example.com` nor
/// `a.b.example.com`); `ba*.example.com`, `*` and `**.example.com` match nothing, nor does a
/// wildcard over a public suffix (`*.com`, `*.co.uk`, `*.s3.amazonaws.com`) per the public
/// suffix list.
///
/// Unlike the stock `ServerIdentityPolicy`, the subject's common name is never used: a leaf
/// without DNS or IP subjectAltName entries matches no host (CA/Browser Forum rules, RFC 9525).
public struct SubjectAltNameHostPolicy: FailureReportingPolicy {
    /// The host the client connected to.
    public let host: ServerHost
    /// The list that decides which wildcards are too broad; without one, a wildcard must be
    /// followed by at least two labels.
    public let publicSuffixes: PublicSuffixList?

    /// The subjectAltName extension is processed here.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [.X509ExtensionID.subjectAlternativeName] }

    /// Creates the policy for a host.
    public init(host: ServerHost, publicSuffixes: PublicSuffixList? = PublicSuffixList.system) {
        self.host = host
        self.publicSuffixes = publicSuffixes
    }

    /// A ``TrustFailure/Code/hostnameMismatch`` when the host is empty or no DNS or IP
    /// subjectAltName of the leaf names it, or a
    /// ``TrustFailure/Code/malformedCertificate`` when its subjectAltName does not decode.
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        let leaf = path.leaf
        guard !host.name.isEmpty else {
            return [
                TrustFailure(
                    .hostnameMismatch,
                    certificate: leaf.subjectText,
                    detail: "cannot be matched to an empty host name (a host was expected but none was given)"
                )
            ]
        }
        let names: SubjectAlternativeNames
        do {
            names = try leaf.subjectAlternativeNames() ?? SubjectAlternativeNames()
        } catch {
            return [TrustFailure(.malformedCertificate, certificate: leaf.subjectText, detail: "has a malformed subjectAltName extension: \(error)")]
        }
        var presented: [String] = []
        for name in names {
            switch name {
            case .dnsName(let dnsName):
                let pattern = acceptedPattern(dnsName)
                if !host.isIPAddress, pattern?.matches(host) == true { return [] }
                presented.append(dnsName + (pattern != nil ? "" : " (a wildcard that matches nothing)"))
            case .ipAddress(let bytes):
                if let address = host.addressBytes, Array(bytes.bytes) == address { return [] }
                presented.append(ServerHost.addressText(Array(bytes.bytes)))
            default:
                continue
            }
        }
        guard !presented.isEmpty else {
            return [
                TrustFailure(
                    .hostnameMismatch,
                    certificate: leaf.subjectText,
                    detail: "has no DNS or IP subjectAltName, so it names no host (the common name is not used); expected \(host)"
                )
            ]
        }
        return [
            TrustFailure(
                .hostnameMismatch,
                certificate: leaf.subjectText,
                detail: "is for \(presented.joined(separator: ", ")), not for \(host)" + asciiFormHint
            )
        ]
    }

    /// For a host that is not ASCII, the form certificates (and DNS, and a URL with the host) use
    /// instead; names are compared as given, so the caller has to pass that form.
    private var asciiFormHint: String {
        guard !host.isIPAddress, let ascii = host.name.idnaASCIIForm else { return "" }
        return " (a name that is not ASCII: certificates name it \(ascii), the form to evaluate it with)"
    }

    /// Whether a certificate's DNS name matches `host`.
    public func matches(certificateName: String, host: String) -> Bool {
        acceptedPattern(certificateName)?.matches(host) ?? false
    }

    /// A certificate's DNS name as a pattern, when it can match anything: a plain name, or `*.`
    /// and a suffix that is not public.
    func acceptedPattern(_ certificateName: String) -> HostPattern? {
        guard !certificateName.hasPrefix("**"), let pattern = try? HostPattern(certificateName) else { return nil }
        guard pattern.kind == .oneLabel else { return pattern }
        if let publicSuffixes { return publicSuffixes.isPublicSuffix(pattern.suffix) ? nil : pattern }
        return pattern.suffix.contains(".") ? pattern : nil
    }
}
