import Foundation

/// The compact JWS serialization of the JWTs a client signs (RFC 7515 §7.1, RFC 7519).
package enum JWT {
    /// `header.claims.signature`, each part base64url without padding; the header gets the
    /// key's `alg`.
    package static func signed(header: [String: Any], claims: [String: Any], key: JWSSigningKey) throws -> String {
        var header = header
        header["alg"] = key.algorithm.rawValue
        let signingInput = try encode(header) + "." + encode(claims)
        return signingInput + "." + base64URL(try key.sign(Data(signingInput.utf8)))
    }

    private static func encode(_ object: [String: Any]) throws -> String {
        base64URL(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    /// Base64url without padding (RFC 7515 §2).
    package static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// `text` as a JSON string, quoted and escaped.
    package static func jsonString(_ text: String) -> String {
        // A string is always serializable as a fragment.
        String(decoding: try! JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed, .withoutEscapingSlashes]), as: UTF8.self)
    }
}
