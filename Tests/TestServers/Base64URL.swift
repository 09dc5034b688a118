import Foundation

/// Base64url without padding (RFC 4648 §5), as JWS, JWK and DPoP write bytes: for the tests'
/// servers and the tests that read what the code under test wrote.
public enum Base64URL {
    /// `data` in base64url, without padding.
    public static func encoded(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of a base64url text, with or without padding; `nil` for one that is not.
    public static func decoded(_ text: some StringProtocol) -> Data? {
        var text = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text)
    }
}
