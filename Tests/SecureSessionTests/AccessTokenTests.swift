import Foundation
@testable import OAuth
import Testing

@testable import SecureSession

/// Token responses as ``OAuthClientCredentials`` reads them (RFC 6749 §5.1, RFC 6750 §2.1).
@Suite("OAuth token responses")
struct AccessTokenTests {
    func parse(_ json: String) throws -> AccessToken {
        try AccessToken.parse(Data(json.utf8), obtained: .now)
    }

    @Test("expires_in as a number or digits, absent or null (no stated lifetime); the type without case; the scope kept; b64token characters and padding")
    func accepted() throws {
        #expect(try parse(#"{"access_token":"a.b-c_d~e+f/g==","token_type":"bearer","expires_in":3600,"scope":"read"}"#).lifetime == .seconds(3600))
        #expect(try parse(#"{"access_token":"a","token_type":"Bearer","expires_in":"60"}"#).lifetime == .seconds(60))
        #expect(try parse(#"{"access_token":"a","token_type":"BEARER","expires_in":null}"#).lifetime == nil)
        #expect(try parse(#"{"access_token":"a","token_type":"Bearer"}"#).lifetime == nil)
        #expect(try parse(#"{"access_token":"a","token_type":"Bearer","scope":"read write"}"#).scope == "read write")
        let token = try parse(#"{"access_token":"secret-value","token_type":"Bearer","expires_in":5}"#)
        #expect(!token.description.contains("secret-value"))
        #expect(token.isExpiring(within: .seconds(5), at: token.obtained))
        #expect(!token.isExpiring(within: .seconds(4), at: token.obtained))
    }

    @Test("refused: not JSON, not an object, no token, an empty one, a token with a space, '=' inside or a line break, no type, another type, expires_in negative, fractional, true, text, beyond ten years", arguments: [
        "not json", "[]", #"{"token_type":"Bearer"}"#, #"{"access_token":"","token_type":"Bearer"}"#,
        #"{"access_token":"a b","token_type":"Bearer"}"#, #"{"access_token":"a=b","token_type":"Bearer"}"#,
        #"{"access_token":"a\nb","token_type":"Bearer"}"#, #"{"access_token":"a"}"#, #"{"access_token":"a","token_type":"DPoP"}"#,
        #"{"access_token":"a","token_type":"Bearer","expires_in":-1}"#, #"{"access_token":"a","token_type":"Bearer","expires_in":1.5}"#,
        #"{"access_token":"a","token_type":"Bearer","expires_in":true}"#, #"{"access_token":"a","token_type":"Bearer","expires_in":"soon"}"#,
        #"{"access_token":"a","token_type":"Bearer","expires_in":999999999999}"#,
    ])
    func refused(json: String) {
        #expect(throws: OAuthError.self) { try parse(json) }
    }
}
