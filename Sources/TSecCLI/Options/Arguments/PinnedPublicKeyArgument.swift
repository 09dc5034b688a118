import ArgumentParser
import Foundation
import TransportSecurity
import X509

/// `tsec get --pinnedpubkey VALUE`, curl's: `sha256//BASE64` digests joined by `;`, or a file
/// holding the public key (PEM `PUBLIC KEY`, or DER `SubjectPublicKeyInfo`) whose pin is
/// required. What curl users already have in their scripts works unchanged.
enum PinnedPublicKeyArgument {
    /// The pins `value` names.
    static func pins(_ value: String) throws -> [SPKIPin] {
        if value.hasPrefix("sha256//") {
            return try value.split(separator: ";", omittingEmptySubsequences: false).map { entry in
                let text = entry.trimmingCharacters(in: .whitespaces)
                guard text.hasPrefix("sha256//") else {
                    throw ValidationError("--pinnedpubkey: '\(text)' is not sha256//BASE64 (curl's form: sha256//A=;sha256//B=)")
                }
                do {
                    return try SPKIPin("sha256/" + text.dropFirst("sha256//".count))
                } catch {
                    throw ValidationError("--pinnedpubkey: \(error)")
                }
            }
        }
        let data: Data
        do {
            data = try InputFile.read(value, limit: 1 << 20)
        } catch {
            throw ValidationError("--pinnedpubkey: the public key file \(value) cannot be read: \(error) (or give sha256//BASE64)")
        }
        let text = String(decoding: data, as: UTF8.self)
        if text.contains("-----BEGIN ") {
            do {
                return try KeyPins.pins(inPEM: text, source: value).map(\.pin)
            } catch {
                throw ValidationError("--pinnedpubkey: \(error)")
            }
        }
        do {
            return [SPKIPin(subjectPublicKeyInfoDER: try Certificate.PublicKey(derEncoded: Array(data)).subjectPublicKeyInfoDER)]
        } catch {
            throw ValidationError("--pinnedpubkey: \(value) is neither a PEM nor a DER public key (SubjectPublicKeyInfo)")
        }
    }
}
