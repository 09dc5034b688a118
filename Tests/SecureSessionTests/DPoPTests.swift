import Crypto
import CryptoExtras
import Foundation
@testable import OAuth
import PKIBuilder
import TestServers
import Testing
import TransportSecurity

@testable import SecureSession

/// DPoP (RFC 9449): proofs checked part by part and verified with swift-crypto, thumbprints by
/// RFC 7638's own example, keys that cannot sign refused, and a client that asked for a bound
/// token refusing a bearer one. (The exchange itself is tested against oauthlib and PyJWT in
/// `OAuthLibInteropTests`.)
@Suite("OAuth DPoP proofs")
struct DPoPTests {
    let lab = try! TrustLab()

    @Test("a proof: typ dpop+jwt, alg ES256, the public JWK without its private part; htm, htu without query and fragment, iat, a new jti each time, ath the token's SHA-256, the server's nonce; an R||S signature swift-crypto verifies with the JWK's key")
    func proof() throws {
        let key = DPoPKey.generated()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let url = URL(string: "https://api.bank.example/v1/payments?page=2#top")!
        let proof = try DPoPProof.make(method: "POST", url: url, key: key, accessToken: "token-1", nonce: "n-1", at: now)
        let parts = proof.split(separator: ".")
        #expect(parts.count == 3)
        let header = try JWTPart.json(parts[0])
        #expect(header["typ"] as? String == "dpop+jwt" && header["alg"] as? String == "ES256")
        let jwk = try #require(header["jwk"] as? [String: String])
        #expect(Set(jwk.keys) == ["kty", "crv", "x", "y"] && jwk["kty"] == "EC" && jwk["crv"] == "P-256")
        let claims = try JWTPart.json(parts[1])
        #expect(claims["htm"] as? String == "POST")
        #expect(claims["htu"] as? String == "https://api.bank.example/v1/payments")
        #expect(claims["iat"] as? Int == 1_800_000_000)
        #expect(claims["nonce"] as? String == "n-1")
        let tokenHash = Data(SHA256.hash(data: Data("token-1".utf8)))
        #expect(try JWTPart.decoded(Substring(try #require(claims["ath"] as? String))) == tokenHash)
        #expect((claims["jti"] as? String)?.count == 36)
        let publicKey = try P256.Signing.PublicKey(
            x963Representation: [0x04] + JWTPart.decoded(Substring(jwk["x"]!)) + JWTPart.decoded(Substring(jwk["y"]!))
        )
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: JWTPart.decoded(parts[2]))
        #expect(publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
        #expect(JWSSigningKey.thumbprint(of: jwk) == key.thumbprint)

        let tokenRequest = try DPoPProof.make(method: "POST", url: url, key: key, at: now)
        let tokenClaims = try JWTPart.json(tokenRequest.split(separator: ".")[1])
        #expect(tokenClaims["ath"] == nil && tokenClaims["nonce"] == nil, "a token request's proof has no ath, and no nonce until a server gives one")
        #expect(tokenClaims["jti"] as? String != claims["jti"] as? String)

        // A user and password in the URL stay out of the proof, which the server and its logs read.
        let withUser = try DPoPProof.make(method: "GET", url: URL(string: "https://alice:s3cret@api.bank.example:8443/v1/payments?x=1")!, key: key, at: now)
        let withUserClaims = try JWTPart.json(withUser.split(separator: ".")[1])
        #expect(withUserClaims["htu"] as? String == "https://api.bank.example:8443/v1/payments")
        let decodedClaims = String(decoding: try JWTPart.decoded(withUser.split(separator: ".")[1]), as: UTF8.self)
        #expect(!decodedClaims.contains("s3cret") && !decodedClaims.contains("alice"))
    }

    @Test("RFC 7638 §3.1's example thumbprint, from the required members only; EC and RSA JWKs of keys read from PEM, never with private members")
    func thumbprints() throws {
        let example = [
            "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
            "e": "AQAB",
            "alg": "RS256",
            "kid": "2011-04-29",
        ]
        #expect(JWSSigningKey.thumbprint(of: example) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")

        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let rsaKey = try DPoPKey(pemEncoded: rsa.pemRepresentation, rsaAlgorithm: .rs256)
        let rsaJWK = rsaKey.signingKey.publicJWK
        #expect(Set(rsaJWK.keys) == ["kty", "n", "e"] && rsaJWK["e"] == "AQAB")
        #expect(try JWTPart.decoded(Substring(rsaJWK["n"]!)).count == 256)
        #expect(rsaKey.algorithm == .rs256)
        let p384 = try DPoPKey(pemEncoded: P384.Signing.PrivateKey().pemRepresentation)
        #expect(p384.signingKey.publicJWK["crv"] == "P-384" && p384.algorithm == .es384)
        #expect(try JWTPart.decoded(Substring(p384.signingKey.publicJWK["x"]!)).count == 48)
        #expect("\(p384)" == "DPoPKey(ES384, jkt \(p384.thumbprint))")
    }

    @Test("refused with the reason: not a key, a weak RSA key, ES256 asked of an RSA key")
    func unusableKeys() throws {
        func reason(_ pem: String, _ algorithm: ClientAssertionKey.Algorithm = .ps256) -> String {
            SigningKeyRefusal.reason(of: pem, algorithm) { try DPoPKey(pemEncoded: $0, rsaAlgorithm: $1) }
        }
        #expect(reason("not a key") == "the key for DPoP proofs cannot be used: not a PEM P-256, P-384 or RSA private key")
        #expect(reason(try SigningKeyRefusal.weakRSAKey()).contains("an RSA key of 1024 bits: DPoP proofs need 2048 or more"))
        #expect(reason(try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation, .es256).contains("an RSA key signs with PS256 or RS256, not ES256"))
    }

    @Test("fails closed: a bearer token answered to a client that asked for a DPoP-bound one is refused; a bound token is no bare authorization value; a proof, like Authorization, does not follow a redirect to another origin")
    func failsClosed() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let credentials = try OAuthClientCredentials(
            tokenURL: server.url("/oauth/token?broken=unbound"), clientID: "partner", authentication: .clientSecretBasic(secret: "s3cret"),
            hosts: ["127.0.0.1"], tokenSession: lab.session(), proofOfPossession: .generated()
        )
        #expect("\(credentials)".hasSuffix(", DPoP ES256)"))
        let session = lab.session { $0.features.interceptor = credentials }
        do {
            _ = try await session.get(server.url("/oauth/api"))
            Issue.record("a bearer token was used")
        } catch OAuthError.invalidTokenResponse(let reason) {
            #expect(reason == "its token_type is 'Bearer', not DPoP")
        }
        await #expect(throws: OAuthError.self) { try await credentials.authorizationValue() }
        let plain = lab.session()
        let elsewhere = server.url("/headers", host: "localhost").absoluteString
        let redirected = try await plain.send(SecureRequest(url: server.url("/redirect?to=" + elsewhere), headers: [("DPoP", "proof-1")]))
        #expect(!redirected.text.contains("proof-1"))
        let sameOrigin = try await plain.send(SecureRequest(url: server.url("/redirect?to=/headers"), headers: [("DPoP", "proof-1")]))
        #expect(sameOrigin.text.contains("proof-1"))
        await session.shutdown()
        await plain.shutdown()
        await server.stop()
    }
}
