import Foundation
import X509

/// Who a peer is, as its certificate names it: what a server that required a client certificate
/// reads once the handshake is over, to know which client it is serving, and what
/// ``PeerNamePattern``s are matched against, on either side.
///
/// Made from the leaf of a validated chain: on swift-nio-ssl, `NIOSSLHandler`'s
/// `peerValidatedCertificateChain`, which `PeerTrustVerifier`'s callback with metadata
/// (TransportSecurityNIO) fills in; in Vapor, `Request.peerCertificateChain`
/// (`ValidatedCertificateChain.peerIdentity()`). Nothing here is trusted by itself: these are
/// the names of a certificate the verifier accepted.
///
/// ```swift
/// let client = try PeerIdentity(certificate: leaf)
/// let isPaymentsWorkload = client.spiffeID?.trustDomain == "payments.example"
/// ```
public struct PeerIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The certificate.
    public let certificate: DERCertificate
    /// The subject's common names (usually none or one).
    public let commonNames: [String]
    /// The DNS names of the subjectAltName extension, as written.
    public let dnsNames: [String]
    /// The IP addresses of the subjectAltName extension, as text (`10.0.0.5`, `2001:db8::1`).
    public let ipAddresses: [String]
    /// The email addresses (rfc822Name) of the subjectAltName extension.
    public let emailAddresses: [String]
    /// The URIs of the subjectAltName extension, SPIFFE IDs included.
    public let uris: [String]
    /// The SPIFFE ID, when the certificate is an X.509 SVID: exactly one URI names a SPIFFE ID,
    /// and it names a workload (it has a path). `nil` when no URI does, when a `spiffe:` URI is
    /// malformed, or when several do (SPIFFE X509-SVID §2: an SVID has exactly one).
    public let spiffeID: SPIFFEID?

    /// Reads the names of `certificate`.
    /// - Throws: ``CertificateLoadingError`` (``CertificateLoadingError/Reason/malformedCertificate(_:)``)
    ///   when its subjectAltName extension does not decode.
    public init(certificate: DERCertificate) throws {
        self.certificate = certificate
        commonNames = certificate.certificate.subject.flatMap { $0 }
            .filter { $0.type == .RDNAttributeType.commonName }
            .map { String($0.value) ?? String(describing: $0.value) }
        let names: SubjectAlternativeNames?
        do {
            names = try certificate.certificate.extensions.subjectAlternativeNames
        } catch {
            throw CertificateLoadingError(
                source: certificate.subjectSummary,
                reason: .malformedCertificate("its subjectAltName extension does not decode: \(CertificateLoader.readable(error))")
            )
        }
        var dnsNames: [String] = [], ipAddresses: [String] = [], emailAddresses: [String] = [], uris: [String] = []
        for name in names.map(Array.init) ?? [] {
            switch name {
            case .dnsName(let dnsName): dnsNames.append(dnsName)
            case .ipAddress(let bytes): ipAddresses.append(ServerHost.addressText(Array(bytes.bytes)))
            case .rfc822Name(let mailbox): emailAddresses.append(mailbox)
            case .uniformResourceIdentifier(let uri): uris.append(uri)
            default: continue
            }
        }
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
        self.emailAddresses = emailAddresses
        self.uris = uris
        spiffeID = SPIFFEID.svidID(among: uris)
    }

    /// The subject distinguished name, as text.
    public var subject: String { certificate.subjectSummary }

    /// The SPKI pin of the certificate's public key.
    public var spkiPin: SPKIPin { certificate.spkiPin }

    /// Every name, as a person reads it: `CN=alice`, `DNS:…`, `IP:…`, `email:…`, `URI:…`.
    public var names: [String] {
        commonNames.map { "CN=\($0)" } + dnsNames.map { "DNS:\($0)" } + ipAddresses.map { "IP:\($0)" }
            + emailAddresses.map { "email:\($0)" } + uris.map { "URI:\($0)" }
    }

    /// The SPIFFE ID if there is one, else the subject.
    public var description: String { spiffeID?.description ?? subject }
}

extension ValidatedCertificateChain {
    /// Who the verified peer is: the names of the chain's leaf. This is the chain Vapor's
    /// `Request.peerCertificateChain` holds when the server verifies with
    /// `PeerTrustVerifier.makeVerificationCallbackWithMetadata()` (TransportSecurityNIO).
    /// - Throws: ``CertificateLoadingError`` when the leaf cannot be encoded or its names read.
    public func peerIdentity() throws -> PeerIdentity {
        try PeerIdentity(certificate: DERCertificate(leaf))
    }
}
