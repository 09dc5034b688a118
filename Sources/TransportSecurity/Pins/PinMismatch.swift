import Foundation

/// What the server presented and what was pinned, when pinning rejects a server: the report
/// OkHttp's `CertificatePinner` prints.
public struct PinMismatch: Sendable, Hashable, CustomStringConvertible {
    /// One certificate, presented or pinned, by its pin and fingerprint.
    public struct Entry: Sendable, Hashable, Codable {
        /// The certificate's subject, when a certificate (not just a pin) is known.
        public let subject: String?
        /// Its SPKI pin.
        public let pin: SPKIPin
        /// SHA-256 over its DER, hexadecimal, when a certificate is known.
        public let sha256Fingerprint: String?

        init(_ certificate: DERCertificate) {
            subject = certificate.subjectSummary
            pin = certificate.spkiPin
            sha256Fingerprint = certificate.sha256Fingerprint.hexString
        }

        init(pin: SPKIPin) {
            subject = nil
            self.pin = pin
            sha256Fingerprint = nil
        }

        fileprivate func line(showingFingerprint: Bool) -> String {
            var text = "    "
            if showingFingerprint, let sha256Fingerprint { text += "sha256:\(sha256Fingerprint) " }
            text += pin.description
            if let subject { text += ": \(subject)" }
            return text
        }
    }

    /// Whether certificates or public keys were pinned.
    public let mode: SSLPinningMode
    /// The host, if one was given.
    public let host: String?
    /// The certificates considered: the validated path (the presented certificates it went
    /// through and the anchor it reached) when there was one, else what the server presented.
    public let presented: [Entry]
    /// What was pinned.
    public let expected: [Entry]

    init(mode: SSLPinningMode, host: String?, considered: [DERCertificate], expected: [Entry]) {
        self.mode = mode
        self.host = host
        self.presented = considered.map(Entry.init)
        self.expected = expected
    }

    /// The pins expected.
    public var expectedPins: [SPKIPin] { expected.map(\.pin) }

    /// The multi-line report: the chain with each certificate's pin, then what was pinned.
    public var description: String {
        let byCertificate = mode == .certificate
        var lines = ["\(byCertificate ? "Certificate" : "Public-key") pinning failure!", "  Peer certificate chain:"]
        lines += presented.map { $0.line(showingFingerprint: byCertificate) }
        lines.append("  Pinned \(byCertificate ? "certificates" : "public keys")\(host.map { " for \($0)" } ?? ""):")
        lines += expected.map { $0.line(showingFingerprint: byCertificate) }
        return lines.joined(separator: "\n")
    }
}

extension Array where Element == UInt8 {
    /// Lowercase hexadecimal.
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
