import Foundation
import X509

/// The pins of keys that have no certificate yet. A pin set needs a backup pin, and a backup pin
/// is the pin of a key kept offline, or of the certificate signing request made with it, long
/// before any certificate carries it.
public enum KeyPins {
    /// One key's pin and the PEM block it came from.
    public struct Entry: Sendable, Hashable {
        /// The key's SPKI pin.
        public let pin: SPKIPin
        /// What the block was: `public key`, `private key`, `certificate request`.
        public let kind: String
    }

    /// The pin of every `PUBLIC KEY`, private key (`PRIVATE KEY`, `EC PRIVATE KEY`,
    /// `RSA PRIVATE KEY`: the pin of its public half) and `CERTIFICATE REQUEST` block of PEM
    /// text, in order. Other blocks are skipped.
    /// - Throws: ``CertificateLoadingError`` naming `source` and the block: an encrypted private
    ///   key, a block that does not parse, or no such block at all.
    public static func pins(inPEM text: String, source: String) throws(CertificateLoadingError) -> [Entry] {
        var entries: [Entry] = []
        for (index, block) in try PEMBlockScanner.blocks(in: text, source: source).enumerated() {
            let place = "the \(block.type) block #\(index + 1)"
            do {
                switch block.type {
                case "PUBLIC KEY":
                    entries.append(Entry(pin: pin(try Certificate.PublicKey(pemEncoded: block.text)), kind: "public key"))
                case "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY":
                    entries.append(Entry(pin: pin(try Certificate.PrivateKey(pemEncoded: block.text).publicKey), kind: "private key"))
                case "CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST":
                    // The older label (`openssl req -new` writes it) names the same structure.
                    let request = try CertificateSigningRequest(pemEncoded: block.text.replacingOccurrences(of: "NEW CERTIFICATE REQUEST", with: "CERTIFICATE REQUEST"))
                    entries.append(Entry(pin: pin(request.publicKey), kind: "certificate request"))
                case "ENCRYPTED PRIVATE KEY":
                    throw CertificateLoadingError(
                        source: source,
                        reason: .unusableKey("\(place) is encrypted; give its public key (openssl pkey -pubout) or a certificate")
                    )
                default:
                    continue
                }
            } catch let error as CertificateLoadingError {
                throw error
            } catch {
                throw CertificateLoadingError(source: source, reason: .unusableKey("\(place) does not parse: \(CertificateLoader.readable(error))"))
            }
        }
        guard !entries.isEmpty else { throw CertificateLoadingError(source: source, reason: .noCertificates) }
        return entries
    }

    private static func pin(_ key: Certificate.PublicKey) -> SPKIPin {
        SPKIPin(subjectPublicKeyInfoDER: key.subjectPublicKeyInfoDER)
    }
}
