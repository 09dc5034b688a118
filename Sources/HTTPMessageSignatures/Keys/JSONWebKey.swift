import Foundation

/// A JSON Web Key (RFC 7517) as HTTP message signature keys are often published (a partner's
/// JWK set): its members read, its numbers and key bytes base64url-decoded, its `alg` mapped to
/// the RFC 9421 algorithm that makes the same signatures (RFC 9421 §3.3.7).
struct JSONWebKey: Decodable {
    let kty: String?
    let crv: String?
    let kid: String?
    let alg: String?
    let use: String?
    let x: String?
    let y: String?
    let d: String?
    let n: String?
    let e: String?
    let p: String?
    let q: String?
    let k: String?

    /// Reads one JWK.
    /// - Throws: ``HTTPSignatureError/unusableKey(_:)`` for what is not a JSON object.
    static func decode(_ data: Data) throws(HTTPSignatureError) -> JSONWebKey {
        do {
            return try JSONDecoder().decode(JSONWebKey.self, from: data)
        } catch {
            throw .unusableKey("not a JSON Web Key (a JSON object with string members): \(error)")
        }
    }

    /// The bytes of the base64url member `name`.
    func bytes(_ name: String, _ value: String?) throws(HTTPSignatureError) -> Data {
        guard let value else { throw .unusableKey("the \(kty ?? "?") JWK has no '\(name)'") }
        var text = value.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard !value.contains("="), let data = Data(base64Encoded: text) else {
            throw .unusableKey("the JWK's '\(name)' is not base64url")
        }
        return data
    }

    /// The integer of the base64url member `name` (an EC coordinate or private key) as the
    /// `size` bytes of its curve. RFC 7518 §6.2.1.2 asks for the full length, but writers that
    /// drop leading zero bytes are common (PyJWT before 2.8 writes 47 bytes for one P-384 key in
    /// 128): a shorter value is the same integer and is padded; a longer one is refused.
    func fieldElement(_ name: String, _ value: String?, size: Int) throws(HTTPSignatureError) -> Data {
        let decoded = try bytes(name, value)
        guard decoded.count <= size else {
            throw .unusableKey("the JWK's '\(name)' has \(decoded.count) bytes, more than the \(size) of its curve")
        }
        return Data(count: size - decoded.count) + decoded
    }

    /// An EC key's point, uncompressed (`04 ‖ x ‖ y`), its coordinates `size` bytes each.
    func uncompressedPoint(size: Int) throws(HTTPSignatureError) -> Data {
        Data([0x04]) + (try fieldElement("x", x, size: size)) + (try fieldElement("y", y, size: size))
    }

    /// The key's name: `id` when given, else its `kid`.
    func keyID(_ id: String?) throws(HTTPSignatureError) -> String {
        guard let name = id ?? kid else { throw .unusableKey("the JWK has no 'kid', and no id was given") }
        return name
    }

    /// The RFC 9421 algorithm its `alg` names (a JWS name or RFC 9421's own), `nil` when it
    /// names none; refuses a key meant for encryption.
    func algorithm() throws(HTTPSignatureError) -> HTTPSignatureAlgorithm? {
        if let use, use != "sig" { throw .unusableKey("the JWK is for '\(use)', not for signatures ('sig')") }
        guard let alg else { return nil }
        if let named = HTTPSignatureAlgorithm(rawValue: alg) { return named }
        switch alg {
        case "EdDSA", "Ed25519": return .ed25519
        case "ES256": return .ecdsaP256SHA256
        case "ES384": return .ecdsaP384SHA384
        case "PS512": return .rsaPSSSHA512
        case "RS256": return .rsaPKCS1v15SHA256
        case "HS256": return .hmacSHA256
        default: throw .unusableKey("the JWK's alg '\(alg)' makes no signature RFC 9421 defines (EdDSA, ES256, ES384, PS512, RS256, HS256)")
        }
    }

    /// `algorithm` when the key's kind makes its signatures; `fallback` when its `alg` says
    /// nothing.
    func checked(_ algorithm: HTTPSignatureAlgorithm?, allowed: [HTTPSignatureAlgorithm], fallback: HTTPSignatureAlgorithm) throws(HTTPSignatureError) -> HTTPSignatureAlgorithm {
        let chosen = algorithm ?? fallback
        guard allowed.contains(chosen) else {
            throw .unusableKey("a \(kty ?? "?")\(crv.map { " " + $0 } ?? "") key does not make \(chosen.rawValue) signatures")
        }
        return chosen
    }
}
