import Crypto
import CryptoExtras
import Foundation
import HTTPMessageSignatures
import SecureSession
import TestServers
import Testing

/// HTTP message signature keys as JSON Web Keys (RFC 7517): RFC 9421's own test keys in their
/// JWK forms give its signatures, keys PyJWT writes as JWKs sign as their PEM forms verify, a
/// JWK set yields its signature keys, and every unusable key is refused with its reason.
@Suite("HTTP message signatures: JSON Web Keys")
struct HTTPSignatureJWKTests {
    typealias Vectors = HTTPMessageSignatureVectorTests
    static let ed25519JWK = #"{"kty":"OKP","crv":"Ed25519","kid":"test-key-ed25519","d":"n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"}"#
    static let p256JWK = #"{"kty":"EC","crv":"P-256","kid":"test-key-ecc-p256","d":"UpuF81l-kOxbjf7T4mNSv0r5tN67Gim7rnf6EFpcYDs","x":"qIVYZVLCrPZHGHjP17CTW0_-D9Lfw0EkjqF7xB4FivA","y":"Mc4nN9LTDOBhfoUeg8Ye9WedFRhnZXZJA12Qp0zZ6F0"}"#

    @Test("RFC 9421's keys as JWKs: the Ed25519 key (B.1.4) gives B.2.6's signature, the shared secret as an oct key (B.1.5) B.2.5's, the P-256 key (B.1.3) verifies B.2.4 and signs what its PEM verifies, the RSA-PSS key's n and e with alg PS512 verify B.2.1")
    func rfcKeys() throws {
        let ed25519 = try HTTPSignatureKey(jwk: Data(Self.ed25519JWK.utf8))
        #expect(ed25519.id == "test-key-ed25519" && ed25519.algorithm == .ed25519)
        let b26 = HTTPMessageSigner(
            key: ed25519, covering: [.field("date"), .method, .path, .authority, .field("content-type"), .field("content-length")],
            label: "sig-b26", lifetime: nil, clock: { Vectors.created }
        )
        #expect(try b26.signature(for: Vectors.testRequest()).signatureMember == "sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:")

        let secret = #"{"kty":"oct","kid":"test-shared-secret","alg":"HS256","k":"\#(Base64URL.encoded(Vectors.sharedSecret))"}"#
        let hmac = try HTTPSignatureKey(jwk: Data(secret.utf8))
        let b25 = HTTPMessageSigner(key: hmac, covering: [.field("date"), .authority, .field("content-type")], label: "sig-b25", lifetime: nil, clock: { Vectors.created })
        #expect(try b25.signature(for: Vectors.testRequest()).signatureMember == "sig-b25=:pxcQw6G3AjtMBQjwo8XzkZf/bws5LelbaMk5rGIGtE8=:")

        let p256 = try HTTPSignatureVerificationKey(jwk: Data(Self.p256JWK.utf8))
        let response = HTTPSignatureMessage.response(statusCode: 200, headers: [
            ("Content-Type", "application/json"),
            ("Content-Digest", "sha-512=:mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==:"),
            ("Content-Length", "23"),
            ("Signature-Input", #"sig-b24=("@status" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-ecc-p256""#),
            ("Signature", "sig-b24=:wNmSUAhwb5LxtOtOpNa6W5xj067m5hFrj0XQ4fvpaCLx0NKocgPquLgyahnzDnDAUy5eCdlYUEkLIj+32oiasw==:"),
        ])
        #expect(try Vectors.verifier(p256).verify(response).keyID == "test-key-ecc-p256")
        let p256Private = try HTTPSignatureKey(jwk: Data(Self.p256JWK.utf8))
        let ours = try HTTPMessageSigner(key: p256Private, covering: [.method], clock: { Vectors.created }).signature(for: Vectors.testRequest())
        let pem = try HTTPSignatureVerificationKey(id: "test-key-ecc-p256", pemEncoded: Vectors.p256PublicPEM)
        #expect(try Vectors.verifier(pem).verify(Vectors.testRequest(adding: [("Signature-Input", ours.signatureInputMember), ("Signature", ours.signatureMember)])).algorithm == .ecdsaP256SHA256)

        let rsa = try _RSA.Signing.PublicKey(pemRepresentation: Vectors.rsaPSSPublicPEM).getKeyPrimitives()
        let rsaJWK = #"{"kty":"RSA","kid":"test-key-rsa-pss","alg":"PS512","n":"\#(Base64URL.encoded(rsa.modulus))","e":"\#(Base64URL.encoded(rsa.publicExponent))"}"#
        let rsaKey = try HTTPSignatureVerificationKey(jwk: Data(rsaJWK.utf8))
        #expect(rsaKey.algorithm == .rsaPSSSHA512)
        let b21 = Vectors.testRequest(adding: [
            ("Signature-Input", #"sig-b21=();created=1618884473;keyid="test-key-rsa-pss";nonce="b3k2pp5k7z-50gnwp.yemd""#),
            ("Signature", "sig-b21=:d2pmTvmbncD3xQm8E9ZV2828BjQWGgiwAaw5bAkgibUopemLJcWDy/lkbbHAve4cRAtx31Iq786U7it++wgGxbtRxf8Udx7zFZsckzXaJMkA7ChG52eSkFxykJeNqsrWH5S+oxNFlD4dzVuwe8DhTSja8xxbR/Z2cOGdCbzR72rgFWhzx2VjBqJzsPLMIQKhO4DGezXehhWwE56YCE+O6c0mKZsfxVrogUvA4HELjVKWmAvtl6UnCh8jYzuVG5WSb/QEVPnP5TmcAnLH1g+s++v6d4s8m0gCw1fV5/SITLq9mhho8K3+7EPYTU8IU1bLhdxO5Nyt8C8ssinQ98Xw9Q==:"),
        ])
        #expect(try Vectors.verifier(rsaKey).verify(b21).label == "sig-b21")
    }

    @Test("private JWKs PyJWT writes (RSA 2048, P-384, Ed25519) sign what the PEM public keys Python's cryptography writes verify")
    func pyJWTKeys() throws {
        let script = """
            import json
            from jwt.algorithms import RSAAlgorithm, ECAlgorithm, OKPAlgorithm
            from cryptography.hazmat.primitives import serialization
            from cryptography.hazmat.primitives.asymmetric import rsa, ec, ed25519
            keys = [(RSAAlgorithm, rsa.generate_private_key(public_exponent=65537, key_size=2048)),
                    (ECAlgorithm, ec.generate_private_key(ec.SECP384R1())),
                    (OKPAlgorithm, ed25519.Ed25519PrivateKey.generate())]
            print(json.dumps([{"jwk": json.loads(kind.to_jwk(key)),
                               "pem": key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()}
                              for kind, key in keys]))
            """
        let output = try shell("/usr/bin/python3 -c \(shellQuoted(script))")
        let pairs = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        #expect(pairs.count == 3)
        for (index, pair) in pairs.enumerated() {
            let jwk = try JSONSerialization.data(withJSONObject: try #require(pair["jwk"]))
            let key = try HTTPSignatureKey(jwk: jwk, id: "python-\(index)")
            let signature = try HTTPMessageSigner(key: key, covering: [.method, .targetURI], clock: { Vectors.created }).signature(for: Vectors.testRequest())
            let publicKey = try HTTPSignatureVerificationKey(id: "python-\(index)", pemEncoded: try #require(pair["pem"] as? String))
            let signed = Vectors.testRequest(adding: [("Signature-Input", signature.signatureInputMember), ("Signature", signature.signatureMember)])
            #expect(try Vectors.verifier(publicKey).verify(signed).algorithm == [HTTPSignatureAlgorithm.rsaPSSSHA512, .ecdsaP384SHA384, .ed25519][index])
        }
    }

    @Test("EC coordinates and private keys written without their leading zero bytes (PyJWT before 2.8 does so for one P-384 key in 128) are the same integers: padded, they sign and verify; a member longer than its curve's size is refused")
    func shortFieldElements() throws {
        /// A key of `make` whose member `stripped` (`d` or `x`) starts with a zero byte, as a JWK
        /// with its members written in their fewest bytes.
        func strippedJWK(curve: String, size: Int, stripped: String, _ make: () -> (d: Data, point: Data)) throws -> (jwk: String, stripped: String) {
            for _ in 0..<20_000 {
                let (d, point) = make()
                let x = point.dropFirst().prefix(size), y = point.suffix(size)
                guard (stripped == "d" ? d : Data(x)).first == 0 else { continue }
                let minimal = { (bytes: Data) in Base64URL.encoded(Data(bytes.drop { $0 == 0 })) }
                let jwk = #"{"kty":"EC","crv":"\#(curve)","kid":"short","d":"\#(minimal(d))","x":"\#(minimal(Data(x)))","y":"\#(minimal(Data(y)))"}"#
                return (jwk, stripped)
            }
            throw HTTPSignatureError.unusableKey("no key with a leading zero byte in 20,000 tries")
        }
        let p256 = { () -> (d: Data, point: Data) in
            let key = P256.Signing.PrivateKey()
            return (key.rawRepresentation, key.publicKey.x963Representation)
        }
        let p384 = { () -> (d: Data, point: Data) in
            let key = P384.Signing.PrivateKey()
            return (key.rawRepresentation, key.publicKey.x963Representation)
        }
        let cases = [
            try strippedJWK(curve: "P-256", size: 32, stripped: "d", p256),
            try strippedJWK(curve: "P-256", size: 32, stripped: "x", p256),
            try strippedJWK(curve: "P-384", size: 48, stripped: "d", p384),
            try strippedJWK(curve: "P-384", size: 48, stripped: "x", p384),
        ]
        for (jwk, stripped) in cases {
            let key = try HTTPSignatureKey(jwk: Data(jwk.utf8))
            let verification = try HTTPSignatureVerificationKey(jwk: Data(jwk.utf8))
            let signature = try HTTPMessageSigner(key: key, covering: [.method, .targetURI], clock: { Vectors.created }).signature(for: Vectors.testRequest())
            let signed = Vectors.testRequest(adding: [("Signature-Input", signature.signatureInputMember), ("Signature", signature.signatureMember)])
            #expect(try Vectors.verifier(verification).verify(signed).keyID == "short", "\(stripped) stripped: \(jwk)")
        }
        let long = Base64URL.encoded(Data(count: 1) + P256.Signing.PrivateKey().publicKey.x963Representation.dropFirst().prefix(32))
        #expect(throws: HTTPSignatureError.unusableKey("the JWK's 'x' has 33 bytes, more than the 32 of its curve")) {
            try HTTPSignatureVerificationKey(jwk: Data(#"{"kty":"EC","crv":"P-256","kid":"k","x":"\#(long)","y":"\#(long)"}"#.utf8))
        }
    }

    @Test("a JWK set gives its signature keys by kid, leaving out keys for encryption; a second key of one kid and an unusable key are refused, naming the key")
    func jwkSet() throws {
        let set = """
            {"keys": [\(Self.ed25519JWK),
                      {"kty":"RSA","use":"enc","kid":"encryption","n":"AQAB","e":"AQAB"},
                      {"kty":"EC","crv":"P-256","kid":"partner-p256","alg":"ES256","use":"sig","x":"qIVYZVLCrPZHGHjP17CTW0_-D9Lfw0EkjqF7xB4FivA","y":"Mc4nN9LTDOBhfoUeg8Ye9WedFRhnZXZJA12Qp0zZ6F0"}]}
            """
        let keys = try HTTPSignatureVerificationKey.keys(jwkSet: Data(set.utf8))
        #expect(keys.map(\.id) == ["test-key-ed25519", "partner-p256"])
        #expect(keys.map(\.algorithm) == [.ed25519, .ecdsaP256SHA256])
        #expect(throws: HTTPSignatureError.unusableKey("key 2 of the set: a second key of kid \"test-key-ed25519\"")) {
            try HTTPSignatureVerificationKey.keys(jwkSet: Data(#"{"keys": [\#(Self.ed25519JWK), \#(Self.ed25519JWK)]}"#.utf8))
        }
        #expect(throws: HTTPSignatureError.unusableKey("key 1 of the set (kid \"big\"): a JWK of kty 'EC' crv 'P-521': RFC 9421 signs with OKP Ed25519, EC P-256 or P-384, RSA and oct keys")) {
            try HTTPSignatureVerificationKey.keys(jwkSet: Data(#"{"keys": [{"kty":"EC","crv":"P-521","kid":"big","x":"AA","y":"AA"}]}"#.utf8))
        }
        #expect(throws: HTTPSignatureError.unusableKey("not a JWK set (a JSON object with a 'keys' array)")) {
            try HTTPSignatureVerificationKey.keys(jwkSet: Data(#"[]"#.utf8))
        }
    }

    @Test("unusable JWKs are refused with their reason: not JSON, no kid, for encryption, an alg of another kind or none RFC 9421 has, a member missing or not base64url, a point off its curve, a short RSA key or secret, no private part, a private part of another key")
    func refusals() throws {
        let x = "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"
        let rsa1024 = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024)).publicKey.getKeyPrimitives()
        let cases: [(String, String)] = [
            ("not json", "not a JSON Web Key"),
            (#"{"kty":"OKP","crv":"Ed25519","x":"\#(x)"}"#, "no 'kid'"),
            (#"{"kty":"OKP","crv":"Ed25519","kid":"k","use":"enc","x":"\#(x)"}"#, "for 'enc', not for signatures"),
            (#"{"kty":"OKP","crv":"Ed25519","kid":"k","alg":"ES256","x":"\#(x)"}"#, "a OKP Ed25519 key does not make ecdsa-p256-sha256 signatures"),
            (#"{"kty":"RSA","kid":"k","alg":"PS256","n":"AQAB","e":"AQAB"}"#, "the JWK's alg 'PS256' makes no signature RFC 9421 defines"),
            (#"{"kty":"EC","crv":"P-256","kid":"k","x":"qIVYZVLCrPZHGHjP17CTW0_-D9Lfw0EkjqF7xB4FivA"}"#, "the EC JWK has no 'y'"),
            (#"{"kty":"OKP","crv":"Ed25519","kid":"k","x":"not+base64url="}"#, "the JWK's 'x' is not base64url"),
            (#"{"kty":"EC","crv":"P-256","kid":"k","x":"qIVYZVLCrPZHGHjP17CTW0_-D9Lfw0EkjqF7xB4FivA","y":"qIVYZVLCrPZHGHjP17CTW0_-D9Lfw0EkjqF7xB4FivA"}"#, "not a point of P-256"),
            (#"{"kty":"RSA","kid":"k","n":"\#(Base64URL.encoded(rsa1024.modulus))","e":"AQAB"}"#, "an RSA key of 1024 bits"),
            (#"{"kty":"oct","kid":"k","k":"c2hvcnQ"}"#, "an HMAC secret of 5 bytes"),
        ]
        for (jwk, words) in cases {
            do {
                _ = try HTTPSignatureVerificationKey(jwk: Data(jwk.utf8))
                Issue.record("\(jwk) was taken")
            } catch {
                #expect(error.description.contains(words), "\(jwk): \(error)")
            }
        }
        #expect(throws: HTTPSignatureError.unusableKey("the OKP JWK has no 'd'")) {
            try HTTPSignatureKey(jwk: Data(#"{"kty":"OKP","crv":"Ed25519","kid":"k","x":"\#(x)"}"#.utf8))
        }
        let otherD = Base64URL.encoded(Curve25519.Signing.PrivateKey().rawRepresentation)
        #expect(throws: HTTPSignatureError.unusableKey("the JWK's 'd' is not the private key of its 'x'")) {
            try HTTPSignatureKey(jwk: Data(#"{"kty":"OKP","crv":"Ed25519","kid":"k","x":"\#(x)","d":"\#(otherD)"}"#.utf8))
        }
    }
}

/// `text` quoted for bash.
private func shellQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
