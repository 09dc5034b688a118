import SwiftASN1
import X509

/// The leaf's subjectAltName must name the host: a DNS name, or an IP address for an IP host.
///
/// DNS names compare case-insensitively. A wildcard is only a whole left-most label followed by
/// at least two labels (`*.example.com` matches `api.example.com`, not `example.com` nor
/// `a.b.example.com`); `ba*.example.com`, `*` and `**.example.com` match nothing, nor does a
/// wildcard over a public suffix of the list's ICANN section (`*.com`, `*.co.uk`). A wildcard
/// over a suffix of its private section (`*.s3.amazonaws.com`, `*.github.io`) matches, as in
/// Chrome and Firefox: those are the certificates such services serve.
///
/// Unlike the stock `ServerIdentityPolicy`, the subject's common name is never used: a leaf
/// without DNS or IP subjectAltName entries matches no host (CA/Browser Forum rules, RFC 9525).
public struct SubjectAltNameHostPolicy: FailureReportingPolicy {
    /// The host the client connected to.
    public let host: ServerHost
    /// The list whose ICANN section decides which wildcards are too broad; without one, a
    /// wildcard must be followed by at least two labels.
    public let publicSuffixes: PublicSuffixList?

    /// The subjectAltName extension is processed here.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [.X509ExtensionID.subjectAlternativeName] }

    /// Creates the policy for a host.
    /// - Parameters:
    ///   - host: The host the client connected to.
    ///   - publicSuffixes: The list bounding wildcards: the snapshot compiled into the library by
    ///     default, so that the answer is the same on every machine.
    public init(host: ServerHost, publicSuffixes: PublicSuffixList? = .bundled) {
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
                presented.append(dnsName + (pattern != nil ? "" : " (\(refusal(of: dnsName)))"))
            case .ipAddress(let bytes):
                // An IPv4-mapped IPv6 entry names the IPv4 address, as the host is read.
                let entry = Array(bytes.bytes)
                let named = ServerHost.unmappedIPv4(entry) ?? entry
                if let address = host.addressBytes, named == address { return [] }
                presented.append(ServerHost.addressText(named))
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
    /// and a suffix that is not an ICANN-section public suffix.
    func acceptedPattern(_ certificateName: String) -> HostPattern? {
        guard !certificateName.hasPrefix("**"), let pattern = try? HostPattern(certificateName) else { return nil }
        guard pattern.kind == .oneLabel else { return pattern }
        return coversPublicSuffix(pattern) ? nil : pattern
    }

    /// Whether a `*.` pattern's suffix is a top-level domain or an ICANN-section public suffix
    /// (without a list: has fewer than two labels).
    private func coversPublicSuffix(_ pattern: HostPattern) -> Bool {
        guard let publicSuffixes else { return !pattern.suffix.contains(".") }
        return publicSuffixes.isICANNPublicSuffix(pattern.suffix)
    }

    /// Why a certificate name that ``acceptedPattern(_:)`` refuses matches nothing.
    private func refusal(of certificateName: String) -> String {
        guard !certificateName.hasPrefix("**"), let pattern = try? HostPattern(certificateName), pattern.kind == .oneLabel else {
            return "a wildcard that matches nothing: only a whole left-most * label is one"
        }
        return "a wildcard over the public suffix \(pattern.suffix), which no certificate may cover"
    }
}
