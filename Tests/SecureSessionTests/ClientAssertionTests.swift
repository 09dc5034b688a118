import Crypto
import CryptoExtras
import Foundation
@testable import OAuth
import TestServers
import Testing

@testable import SecureSession

/// Client assertions for `private_key_jwt` (RFC 7523), checked part by part and verified with
/// swift-crypto; keys that cannot sign them refused with their reason.
@Suite("OAuth client assertions")
struct ClientAssertionTests {
    func decoded(_ part: Substring) throws -> Data { try JWTPart.decoded(part) }

    func json(_ part: Substring) throws -> [String: Any] { try JWTPart.json(part) }

    @Test("ES256: header, claims (issuer and subject the client, audience the token endpoint, a minute from iat, a jti), an R||S signature swift-crypto verifies; a new jti every time")
    func es256() throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = try ClientAssertionKey(pemEncoded: privateKey.pemRepresentation, keyID: "key-1")
        #expect(key.algorithm == .es256 && "\(key)" == "ClientAssertionKey(ES256, kid key-1)")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let audience = URL(string: "https://auth.example.test/oauth2/token")!
        let assertion = try ClientAssertion.make(clientID: "partner", audience: audience, key: key, at: now)
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        #expect(!assertion.contains("=") && !assertion.contains("+") && !assertion.contains("/"))
        let header = try json(parts[0])
        #expect(header["alg"] as? String == "ES256" && header["typ"] as? String == "JWT" && header["kid"] as? String == "key-1")
        let claims = try json(parts[1])
        #expect(claims["iss"] as? String == "partner" && claims["sub"] as? String == "partner")
        #expect(claims["aud"] as? String == "https://auth.example.test/oauth2/token")
        #expect(claims["iat"] as? Int == 1_800_000_000 && claims["exp"] as? Int == 1_800_000_060)
        #expect((claims["jti"] as? String)?.count == 36)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: decoded(parts[2]))
        #expect(privateKey.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
        let other = try ClientAssertion.make(clientID: "partner", audience: audience, key: key, at: now)
        #expect(try json(other.split(separator: ".")[1])["jti"] as? String != claims["jti"] as? String)
        // A token endpoint written with a user and password: the audience names it without them.
        let withUser = try ClientAssertion.make(clientID: "partner", audience: URL(string: "https://partner:s3cret@auth.example.test/oauth2/token")!, key: key, at: now)
        #expect(try json(withUser.split(separator: ".")[1])["aud"] as? String == "https://auth.example.test/oauth2/token")
    }

    @Test("P-384 signs ES384; RSA PS256 by default or RS256, each verified with swift-crypto")
    func otherAlgorithms() throws {
        let p384 = P384.Signing.PrivateKey()
        let es384 = try ClientAssertion.make(clientID: "c", audience: URL(string: "https://a.test/t")!, key: try ClientAssertionKey(pemEncoded: p384.pemRepresentation))
        let es384Parts = es384.split(separator: ".")
        #expect(try json(es384Parts[0])["alg"] as? String == "ES384")
        #expect(p384.publicKey.isValidSignature(try P384.Signing.ECDSASignature(rawRepresentation: decoded(es384Parts[2])), for: Data("\(es384Parts[0]).\(es384Parts[1])".utf8)))

        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        for (algorithm, padding) in [(ClientAssertionKey.Algorithm.ps256, _RSA.Signing.Padding.PSS), (.rs256, .insecurePKCS1v1_5)] {
            let key = try ClientAssertionKey(pemEncoded: rsa.pemRepresentation, rsaAlgorithm: algorithm)
            let parts = try ClientAssertion.make(clientID: "c", audience: URL(string: "https://a.test/t")!, key: key).split(separator: ".")
            #expect(try json(parts[0])["alg"] as? String == algorithm.rawValue)
            let signature = _RSA.Signing.RSASignature(rawRepresentation: try decoded(parts[2]))
            #expect(rsa.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8), padding: padding), "\(algorithm)")
        }
    }

    @Test("refused with the reason: no key, a public key, an encrypted key, an RSA key under 2048 bits, ES256 asked of an RSA key, an Ed25519 key")
    func unusable() throws {
        func reason(_ pem: String, _ algorithm: ClientAssertionKey.Algorithm = .ps256) -> String {
            SigningKeyRefusal.reason(of: pem, algorithm) { try ClientAssertionKey(pemEncoded: $0, rsaAlgorithm: $1) }
        }
        #expect(reason("not a key") == "the key for client assertions cannot be used: not a PEM P-256, P-384 or RSA private key")
        #expect(reason(P256.Signing.PrivateKey().publicKey.pemRepresentation).contains("not a PEM P-256, P-384 or RSA private key"))
        #expect(reason(try SigningKeyRefusal.weakRSAKey()).contains("an RSA key of 1024 bits: client assertions need 2048 or more"))
        let encrypted = try SigningKeyRefusal.openSSLKey("-algorithm EC -pkeyopt ec_paramgen_curve:P-256 -aes-128-cbc -pass pass:x")
        #expect(reason(encrypted).contains("an encrypted private key"))
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        #expect(reason(rsa.pemRepresentation, .es256).contains("an RSA key signs with PS256 or RS256, not ES256"))
        #expect(reason(try SigningKeyRefusal.openSSLKey("-algorithm ED25519")).contains("not a PEM P-256, P-384 or RSA private key"))
    }
}
