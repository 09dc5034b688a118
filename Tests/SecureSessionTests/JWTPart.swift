import Foundation
import TestServers
import Testing

/// The parts of a compact JWS as the tests read them.
enum JWTPart {
    /// A base64url part decoded.
    static func decoded(_ part: Substring) throws -> Data {
        try #require(Base64URL.decoded(part))
    }

    /// A base64url part decoded as a JSON object.
    static func json(_ part: Substring) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: decoded(part)) as? [String: Any])
    }
}
