import ArgumentParser
import Foundation
import SecureSession

/// What the HTTP message signature options of `tsec get` and `tsec verify-signature` share:
/// the RSA algorithm named, the components named, and telling a JWK file from a PEM one.
enum SignatureArguments {
    /// The algorithm an RSA key is given (`rsa-pss-sha512` when `name` is `nil`).
    /// - Throws: `ValidationError` for a name that is not one of RSA's.
    static func rsaAlgorithm(_ name: String?, option: String) throws -> HTTPSignatureAlgorithm {
        guard let name else { return .rsaPSSSHA512 }
        guard let algorithm = HTTPSignatureAlgorithm(rawValue: name), [.rsaPSSSHA512, .rsaPKCS1v15SHA256].contains(algorithm) else {
            throw ValidationError("\(option) takes rsa-pss-sha512 or rsa-v1_5-sha256, not '\(name)' (other keys say their algorithm themselves)")
        }
        return algorithm
    }

    /// The components `texts` name.
    /// - Throws: `ValidationError` naming the option and the identifier that is none.
    static func components(_ texts: [String], option: String) throws -> [HTTPMessageComponent] {
        try texts.map { text in
            do {
                return try HTTPMessageComponent(parsing: text)
            } catch {
                throw ValidationError("\(option): \(error)")
            }
        }
    }

    /// Whether a key file holds JSON (a JWK or a JWK set) rather than PEM.
    static func isJSON(_ contents: Data) -> Bool {
        contents.drop(while: { [0x20, 0x09, 0x0A, 0x0D].contains($0) }).first == UInt8(ascii: "{")
    }
}
