import Foundation
import HTTPMessageSignatures
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

/// HTTP message signatures (RFC 9421) judged by the RFC's own examples: its derived
/// components and field forms (§2.1, §2.2), its test keys and signatures (Appendix B: Ed25519
/// and HMAC signed byte for byte, RSA-PSS and ECDSA verified), and RFC 9530's digests.
@Suite("HTTP message signatures: RFC 9421's examples")
struct HTTPMessageSignatureVectorTests {
    static let created = Date(timeIntervalSince1970: 1_618_884_473)
    static let ed25519PEM = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF\n-----END PRIVATE KEY-----\n"
    static let ed25519PublicPEM = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n-----END PUBLIC KEY-----\n"
    static let p256PublicPEM = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEqIVYZVLCrPZHGHjP17CTW0/+D9Lf
        w0EkjqF7xB4FivAxzic30tMM4GF+hR6Dxh71Z50VGGdldkkDXZCnTNnoXQ==
        -----END PUBLIC KEY-----
        """
    static let rsaPSSPublicPEM = """
        -----BEGIN PUBLIC KEY-----
        MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAr4tmm3r20Wd/PbqvP1s2
        +QEtvpuRaV8Yq40gjUR8y2Rjxa6dpG2GXHbPfvMs8ct+Lh1GH45x28Rw3Ry53mm+
        oAXjyQ86OnDkZ5N8lYbggD4O3w6M6pAvLkhk95AndTrifbIFPNU8PPMO7OyrFAHq
        gDsznjPFmTOtCEcN2Z1FpWgchwuYLPL+Wokqltd11nqqzi+bJ9cvSKADYdUAAN5W
        Utzdpiy6LbTgSxP7ociU4Tn0g5I6aDZJ7A8Lzo0KSyZYoA485mqcO0GVAdVw9lq4
        aOT9v6d+nb4bnNkQVklLQ3fVAvJm+xdDOp9LCNCN48V2pnDOkFV6+U9nV5oyc6XI
        2wIDAQAB
        -----END PUBLIC KEY-----
        """
    static let sharedSecret = Data(base64Encoded: "uzvJfB4u3N0Jy4T7NZ75MDVcr8zSTInedJtkgcu46YW4XByzNJjxBdtjUkdJPBtbmHhIDi6pcl8jsasjlTMtDQ==")!

    /// RFC 9421 Appendix B.2's test request.
    static func testRequest(adding fields: [(name: String, value: String)] = []) -> HTTPSignatureMessage {
        .request(
            method: "POST",
            url: URL(string: "https://example.com/foo?param=Value&Pet=dog")!,
            headers: [
                ("Host", "example.com"),
                ("Date", "Tue, 20 Apr 2021 02:07:55 GMT"),
                ("Content-Type", "application/json"),
                ("Content-Digest", "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:"),
                ("Content-Length", "18"),
            ] + fields,
            body: Data(#"{"hello": "world"}"#.utf8)
        )
    }

    static func verifier(_ key: HTTPSignatureVerificationKey, requiring components: [HTTPMessageComponent] = []) -> HTTPMessageSignatureVerifier {
        HTTPMessageSignatureVerifier(keys: [key], requiredComponents: components, maximumAge: nil, clock: { created })
    }

    @Test("B.2.6: Ed25519 over date, @method, @path, @authority, content-type, content-length gives the RFC's base, Signature-Input and signature byte for byte, and verifies with the RFC's public key")
    func ed25519() throws {
        let key = try HTTPSignatureKey(id: "test-key-ed25519", pemEncoded: Self.ed25519PEM)
        #expect(key.algorithm == .ed25519)
        let signer = HTTPMessageSigner(
            key: key,
            covering: [.field("date"), .method, .path, .authority, .field("content-type"), .field("content-length")],
            label: "sig-b26",
            lifetime: nil,
            clock: { Self.created }
        )
        let signature = try signer.signature(for: Self.testRequest())
        #expect(signature.base == """
            "date": Tue, 20 Apr 2021 02:07:55 GMT
            "@method": POST
            "@path": /foo
            "@authority": example.com
            "content-type": application/json
            "content-length": 18
            "@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"
            """)
        #expect(signature.signatureInputMember == #"sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519""#)
        #expect(signature.signatureMember == "sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:")

        let publicKey = try HTTPSignatureVerificationKey(id: "test-key-ed25519", pemEncoded: Self.ed25519PublicPEM)
        let signed = Self.testRequest(adding: [("Signature-Input", signature.signatureInputMember), ("Signature", signature.signatureMember)])
        let verified = try Self.verifier(publicKey).verify(signed)
        #expect(verified.label == "sig-b26" && verified.keyID == "test-key-ed25519" && verified.base == signature.base)
        #expect(verified.bodyVerified == false, "content-digest is not covered, so the body is not checked")
    }

    @Test("B.2.5: HMAC-SHA256 with the RFC's shared secret over date, @authority, content-type gives the RFC's signature")
    func hmac() throws {
        let key = try HTTPSignatureKey(id: "test-shared-secret", sharedSecret: Self.sharedSecret)
        let signer = HTTPMessageSigner(key: key, covering: [.field("date"), .authority, .field("content-type")], label: "sig-b25", lifetime: nil, clock: { Self.created })
        let signature = try signer.signature(for: Self.testRequest())
        #expect(signature.signatureInputMember == #"sig-b25=("date" "@authority" "content-type");created=1618884473;keyid="test-shared-secret""#)
        #expect(signature.signatureMember == "sig-b25=:pxcQw6G3AjtMBQjwo8XzkZf/bws5LelbaMk5rGIGtE8=:")
        let verified = try Self.verifier(key.verificationKey).verify(Self.testRequest(adding: [("Signature-Input", signature.signatureInputMember), ("Signature", signature.signatureMember)]))
        #expect(verified.algorithm == .hmacSHA256)
    }

    @Test("B.2.1 and B.2.3: the RFC's RSA-PSS-SHA512 signatures (no components with a nonce; eight components with @query and content-digest) verify with its public key, and the body matches content-digest")
    func rsaPSS() throws {
        let key = try HTTPSignatureVerificationKey(id: "test-key-rsa-pss", pemEncoded: Self.rsaPSSPublicPEM)
        #expect(key.algorithm == .rsaPSSSHA512)
        let b21 = Self.testRequest(adding: [
            ("Signature-Input", #"sig-b21=();created=1618884473;keyid="test-key-rsa-pss";nonce="b3k2pp5k7z-50gnwp.yemd""#),
            ("Signature", "sig-b21=:d2pmTvmbncD3xQm8E9ZV2828BjQWGgiwAaw5bAkgibUopemLJcWDy/lkbbHAve4cRAtx31Iq786U7it++wgGxbtRxf8Udx7zFZsckzXaJMkA7ChG52eSkFxykJeNqsrWH5S+oxNFlD4dzVuwe8DhTSja8xxbR/Z2cOGdCbzR72rgFWhzx2VjBqJzsPLMIQKhO4DGezXehhWwE56YCE+O6c0mKZsfxVrogUvA4HELjVKWmAvtl6UnCh8jYzuVG5WSb/QEVPnP5TmcAnLH1g+s++v6d4s8m0gCw1fV5/SITLq9mhho8K3+7EPYTU8IU1bLhdxO5Nyt8C8ssinQ98Xw9Q==:"),
        ])
        let verified21 = try Self.verifier(key).verify(b21)
        #expect(verified21.parameters.nonce == "b3k2pp5k7z-50gnwp.yemd" && verified21.parameters.components.isEmpty)
        let b23 = Self.testRequest(adding: [
            ("Signature-Input", #"sig-b23=("date" "@method" "@path" "@query" "@authority" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-rsa-pss""#),
            ("Signature", "sig-b23=:bbN8oArOxYoyylQQUU6QYwrTuaxLwjAC9fbY2F6SVWvh0yBiMIRGOnMYwZ/5MR6fb0Kh1rIRASVxFkeGt683+qRpRRU5p2voTp768ZrCUb38K0fUxN0O0iC59DzYx8DFll5GmydPxSmme9v6ULbMFkl+V5B1TP/yPViV7KsLNmvKiLJH1pFkh/aYA2HXXZzNBXmIkoQoLd7YfW91kE9o/CCoC1xMy7JA1ipwvKvfrs65ldmlu9bpG6A9BmzhuzF8Eim5f8ui9eH8LZH896+QIF61ka39VBrohr9iyMUJpvRX2Zbhl5ZJzSRxpJyoEZAFL2FUo5fTIztsDZKEgM4cUA==:"),
        ])
        let verified23 = try Self.verifier(key, requiring: [.field("content-digest")]).verify(b23)
        #expect(verified23.bodyVerified)
        #expect(verified23.base.contains("\n\"@query\": ?param=Value&Pet=dog\n"))
    }

    @Test("B.2.4: the RFC's ECDSA P-256 signature of its test response (@status, content-type, content-digest, content-length) verifies, the body matches its SHA-512 digest; a signature of ours over it verifies too")
    func ecdsaResponse() throws {
        let key = try HTTPSignatureVerificationKey(id: "test-key-ecc-p256", pemEncoded: Self.p256PublicPEM)
        let fields: [(name: String, value: String)] = [
            ("Date", "Tue, 20 Apr 2021 02:07:56 GMT"),
            ("Content-Type", "application/json"),
            ("Content-Digest", "sha-512=:mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==:"),
            ("Content-Length", "23"),
        ]
        let response = HTTPSignatureMessage.response(statusCode: 200, headers: fields + [
            ("Signature-Input", #"sig-b24=("@status" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-ecc-p256""#),
            ("Signature", "sig-b24=:wNmSUAhwb5LxtOtOpNa6W5xj067m5hFrj0XQ4fvpaCLx0NKocgPquLgyahnzDnDAUy5eCdlYUEkLIj+32oiasw==:"),
        ], body: Data(#"{"message": "good dog"}"#.utf8))
        let verified = try Self.verifier(key).verify(response)
        #expect(verified.bodyVerified && verified.base.hasPrefix("\"@status\": 200\n"))

        let ours = HTTPSignatureKey.generated(id: "server", algorithm: .ecdsaP256SHA256)
        let signer = HTTPMessageSigner(key: ours, covering: [.status, .field("content-digest")], clock: { Self.created })
        let unsigned = HTTPSignatureMessage.response(statusCode: 200, headers: fields)
        let signature = try signer.signature(for: unsigned)
        #expect(signature.signature.count == 64, "r || s, not DER")
        let signedResponse = HTTPSignatureMessage.response(statusCode: 200, headers: fields + [("Signature-Input", signature.signatureInputMember), ("Signature", signature.signatureMember)])
        #expect(try Self.verifier(ours.verificationKey).verify(signedResponse).keyID == "server")
    }

    @Test("§2.2: the derived components of the RFC's request, @query '?' when there is none, the port kept when it is not the scheme's")
    func derivedComponents() throws {
        let request = HTTPSignatureMessage.request(method: "POST", url: URL(string: "https://www.example.com/path?param=value")!, headers: [])
        let expected: [(HTTPMessageComponent, String)] = [
            (.method, "POST"), (.targetURI, "https://www.example.com/path?param=value"), (.authority, "www.example.com"),
            (.scheme, "https"), (.requestTarget, "/path?param=value"), (.path, "/path"), (.query, "?param=value"),
        ]
        for (component, value) in expected {
            #expect(try Self.value(component, in: request) == value, "\(component)")
        }
        let bare = HTTPSignatureMessage.request(method: "GET", url: URL(string: "http://Example.COM:8080")!, headers: [])
        #expect(try Self.value(.query, in: bare) == "?")
        #expect(try Self.value(.path, in: bare) == "/")
        #expect(try Self.value(.authority, in: bare) == "example.com:8080")
        let ipv6 = HTTPSignatureMessage.request(method: "GET", url: URL(string: "https://[::1]:443/x")!, headers: [])
        #expect(try Self.value(.authority, in: ipv6) == "[::1]")
    }

    @Test("§2.2.8: query parameters decoded as a form and encoded again (spaces %20, a '+' a space, non-ASCII names), a parameter named twice or absent refused")
    func queryParameters() throws {
        let request = HTTPSignatureMessage.request(
            method: "GET",
            url: URL(string: "https://example.com/parameters?var=this%20is%20a%20big%0Avalue&bar=with+plus+whitespace&fa%C3%A7ade%22%3A%20=something&twice=1&twice=2")!,
            headers: []
        )
        #expect(try Self.value(.queryParameter("var"), in: request) == "this%20is%20a%20big%0Avalue")
        #expect(try Self.value(.queryParameter("bar"), in: request) == "with%20plus%20whitespace")
        #expect(try Self.value(.queryParameter("fa%C3%A7ade%22%3A%20"), in: request) == "something")
        #expect(HTTPMessageComponent.queryParameter("var").description == #""@query-param";name="var""#)
        Self.expectRefusal(.queryParameter("twice"), in: request, saying: "2 times")
        Self.expectRefusal(.queryParameter("absent"), in: request, saying: "no parameter 'absent'")
    }

    @Test("§2.1: field values trimmed and combined with ', '; ;sf re-serialized; ;key a dictionary member with its parameters; ;bs each line a byte sequence")
    func fieldForms() throws {
        let message = HTTPSignatureMessage.request(method: "GET", url: URL(string: "https://example.com/")!, headers: [
            ("X-OWS-Header", "   Leading and trailing whitespace.   "),
            ("Cache-Control", "max-age=60"),
            ("Cache-Control", "   must-revalidate"),
            ("Example-Dict", " a=1,    b=2;x=1;y=2,   c=(a   b   c)"),
            ("Example-Members", "a=(1 2), b=3, c=4;aa=bb, d=(5 6);valid"),
            ("Example-Header", "value, with, lots"),
            ("Example-Header", "of, commas"),
        ])
        #expect(try Self.value(.field("x-ows-header"), in: message) == "Leading and trailing whitespace.")
        #expect(try Self.value(.field("Cache-Control"), in: message) == "max-age=60, must-revalidate")
        #expect(try Self.value(.field("example-dict"), in: message) == "a=1,    b=2;x=1;y=2,   c=(a   b   c)")
        #expect(try Self.value(HTTPMessageComponent("example-dict", parameters: [.structured]), in: message) == "a=1, b=2;x=1;y=2, c=(a b c)")
        #expect(try Self.value(.field("example-members", key: "a"), in: message) == "(1 2)")
        #expect(try Self.value(.field("example-members", key: "b"), in: message) == "3")
        #expect(try Self.value(.field("example-members", key: "c"), in: message) == "4;aa=bb")
        #expect(try Self.value(.field("example-members", key: "d"), in: message) == "(5 6);valid")
        #expect(try Self.value(HTTPMessageComponent("example-header", parameters: [.byteSequence]), in: message) == ":dmFsdWUsIHdpdGgsIGxvdHM=:, :b2YsIGNvbW1hcw==:")
        #expect(HTTPMessageComponent("example-dict", parameters: [.key("a"), .request]).description == #""example-dict";key="a";req"#)
        Self.expectRefusal(.field("example-members", key: "zz"), in: message, saying: "no member 'zz'")
        Self.expectRefusal(.field("absent"), in: message, saying: "no field 'absent'")
        Self.expectRefusal(HTTPMessageComponent("example-header", parameters: [.byteSequence, .structured]), in: message, saying: "not ';bs' with the others")
    }

    @Test("RFC 9530: the digests of {\"hello\": \"world\"}; a changed body, an unknown algorithm alone and a malformed field are refused")
    func contentDigest() throws {
        let body = Data(#"{"hello": "world"}"#.utf8)
        #expect(ContentDigest.fieldValue(for: body) == "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:")
        #expect(ContentDigest.fieldValue(for: body, algorithm: .sha512) == "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:")
        try ContentDigest.verify("sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:, md5=:AAAA:", body: body)
        #expect(throws: HTTPSignatureError.self) { try ContentDigest.verify("sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:", body: Data("{}".utf8)) }
        do {
            try ContentDigest.verify("md5=:AAAA:", body: body)
            Issue.record("an unknown algorithm alone was accepted")
        } catch {
            #expect(error.description.contains("no digest of a known algorithm"))
        }
        do {
            try ContentDigest.verify("sha-256=X48E", body: body)
            Issue.record("a token in place of a byte sequence was accepted")
        } catch {
            #expect(error == .malformedField("Content-Digest", reason: "'sha-256' is not a byte sequence"))
        }
    }

    static func value(_ component: HTTPMessageComponent, in message: HTTPSignatureMessage) throws -> String {
        // The base of one component: its line, without the @signature-params line.
        let signer = HTTPMessageSigner(key: .generated(id: "k"), covering: [component], lifetime: nil, clock: { created })
        let base = try signer.signature(for: message).base
        let line = try #require(base.split(separator: "\n").first)
        return String(line.dropFirst("\(component): ".count))
    }

    static func expectRefusal(_ component: HTTPMessageComponent, in message: HTTPSignatureMessage, saying words: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try value(component, in: message)
            Issue.record("\(component) was taken", sourceLocation: sourceLocation)
        } catch {
            #expect("\(error)".contains(words), "\(error)", sourceLocation: sourceLocation)
        }
    }
}
