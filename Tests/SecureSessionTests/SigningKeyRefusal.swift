import Foundation
import OAuth
import SecureSession
import TestServers

/// How the readers of signing keys (``ClientAssertionKey``, ``DPoPKey``) answer a PEM text, and
/// keys only openssl makes (weak, encrypted, Ed25519).
enum SigningKeyRefusal {
    /// `accepted`, or the description of the error `read` throws for `pem`.
    static func reason(of pem: String, _ algorithm: ClientAssertionKey.Algorithm = .ps256, by read: (String, ClientAssertionKey.Algorithm) throws -> Any) -> String {
        do {
            _ = try read(pem, algorithm)
            return "accepted"
        } catch {
            return "\(error)"
        }
    }

    /// A PEM private key made by `openssl genpkey ARGUMENTS`.
    static func openSSLKey(_ arguments: String) throws -> String {
        let file = NSTemporaryDirectory() + "tsec-key-\(UUID().uuidString).pem"
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = try shell("openssl genpkey \(arguments) -out '\(file)' 2>/dev/null")
        return try String(contentsOfFile: file, encoding: .utf8)
    }

    /// An RSA key of 1024 bits, which no JWS may be signed with.
    static func weakRSAKey() throws -> String { try openSSLKey("-algorithm RSA -pkeyopt rsa_keygen_bits:1024") }
}
