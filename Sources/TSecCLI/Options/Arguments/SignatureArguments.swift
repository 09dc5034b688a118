import ArgumentParser
import Foundation
import HTTPMessageSignatures
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

    /// The verification keys of `file`: a JWK set, a JWK, or a PEM public key or certificate
    /// under `keyID`; `algorithm` for an RSA key that does not say its own. `keyIDOption` names
    /// the option a PEM key needs.
    static func verificationKeys(file: String, keyID: String?, algorithm: String?, algorithmOption: String, keyIDOption: String) throws -> [HTTPSignatureVerificationKey] {
        let contents = try ArgumentFile.read(file, as: "the key")
        let rsaAlgorithm = try rsaAlgorithm(algorithm, option: algorithmOption)
        do {
            if isJSON(contents) {
                if (try? JSONSerialization.jsonObject(with: contents) as? [String: Any])?["keys"] != nil {
                    return try HTTPSignatureVerificationKey.keys(jwkSet: contents)
                }
                return [try HTTPSignatureVerificationKey(jwk: contents, id: keyID, rsaAlgorithm: rsaAlgorithm)]
            }
            guard let keyID else { throw ValidationError("a PEM key (\(file)) needs \(keyIDOption) (the keyid signatures name it by)") }
            return [try HTTPSignatureVerificationKey(id: keyID, pemEncoded: String(decoding: contents, as: UTF8.self), rsaAlgorithm: rsaAlgorithm)]
        } catch let error as HTTPSignatureError {
            throw ValidationError("\(file): \(error)")
        }
    }

    /// Whether a key file holds JSON (a JWK or a JWK set) rather than PEM.
    static func isJSON(_ contents: Data) -> Bool {
        contents.drop(while: { [0x20, 0x09, 0x0A, 0x0D].contains($0) }).first == UInt8(ascii: "{")
    }
}
