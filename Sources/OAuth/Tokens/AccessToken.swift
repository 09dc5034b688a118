import Foundation
import TransportSecurity

/// An access token the token endpoint issued (RFC 6749 §5.1): its value, when it expires, and
/// when it was obtained. Its description never shows the value.
package struct AccessToken: Sendable, CustomStringConvertible {
    /// The token, as sent after `Bearer `.
    package let value: String
    /// When it was obtained.
    package let obtained: ContinuousClock.Instant
    /// How long the endpoint said it lasts (`expires_in`); `nil`: it did not say, and the token
    /// is used until a server refuses it.
    package let lifetime: Duration?
    /// The scopes granted, when the endpoint named them.
    package let scope: String?

    /// Whether the token is over, or will be within `margin`, at `now`.
    package func isExpiring(within margin: Duration, at now: ContinuousClock.Instant) -> Bool {
        guard let lifetime else { return false }
        return now + margin >= obtained + lifetime
    }

    package var description: String {
        "access token (\(lifetime.map { "for \($0)" } ?? "no stated lifetime")\(scope.map { ", scope \($0)" } ?? ""))"
    }

    /// The token in the endpoint's JSON answer `body`, of the type `type` (`Bearer`, or `DPoP`
    /// for a token bound to a DPoP key: RFC 9449 §5).
    /// - Throws: ``OAuthError/invalidTokenResponse(_:)`` naming what is wrong.
    package static func parse(_ body: Data, obtained: ContinuousClock.Instant, type expected: String = "Bearer") throws -> AccessToken {
        guard let fields = try? JSONDecoder().decode(TokenFields.self, from: body) else {
            throw OAuthError.invalidTokenResponse("the body is not a JSON object of token fields (\(body.count) bytes)")
        }
        guard let value = fields.accessToken, !value.isEmpty else { throw OAuthError.invalidTokenResponse("it has no access_token") }
        // RFC 6750 §2.1's b64token: anything else could not be written after `Bearer ` (a line
        // break would add a header field of the server's choosing).
        guard isBearerToken(value) else {
            throw OAuthError.invalidTokenResponse("its access_token has characters a bearer token cannot have (RFC 6750 §2.1)")
        }
        guard let type = fields.tokenType else { throw OAuthError.invalidTokenResponse("it has no token_type") }
        guard type.lowercased() == expected.lowercased() else { throw OAuthError.invalidTokenResponse("its token_type is '\(type)', not \(expected)") }
        var lifetime: Duration?
        switch fields.expiresIn {
        case nil, .absent: lifetime = nil
        case .seconds(let seconds): lifetime = .seconds(seconds)
        case .invalid: throw OAuthError.invalidTokenResponse("its expires_in is not a number of seconds (0 to ten years)")
        }
        return AccessToken(value: value, obtained: obtained, lifetime: lifetime, scope: fields.scope)
    }

    /// The fields of a token response (RFC 6749 §5.1).
    private struct TokenFields: Decodable {
        let accessToken: String?
        let tokenType: String?
        let expiresIn: Seconds?
        let scope: String?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case tokenType = "token_type"
            case expiresIn = "expires_in"
            case scope
        }
    }

    /// `expires_in`: a whole number of seconds from 0 to ten years, written as a number or, as
    /// some endpoints do, as digits in a string.
    private enum Seconds: Decodable {
        case seconds(Int)
        case absent
        case invalid

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .absent
                return
            }
            let seconds: Int?
            if let number = try? container.decode(Int.self) {
                seconds = number
            } else if let text = try? container.decode(String.self), let number = DecimalNumber.saturating(text.utf8) {
                seconds = Int(exactly: number)
            } else {
                seconds = nil
            }
            guard let seconds, (0...315_360_000).contains(seconds) else {
                self = .invalid
                return
            }
            self = .seconds(seconds)
        }
    }

    private static func isBearerToken(_ value: String) -> Bool {
        let body = value.utf8.prefix { $0 != UInt8(ascii: "=") }
        guard !body.isEmpty, value.utf8.dropFirst(body.count).allSatisfy({ $0 == UInt8(ascii: "=") }) else { return false }
        return body.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "-._~+/".utf8.contains(byte)
            }
        }
    }
}
