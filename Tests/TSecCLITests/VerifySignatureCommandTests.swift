import Foundation
import HTTPMessageSignatures
import SecureSession
import TSecCLI
import Testing

/// `tsec verify-signature`: RFC 9421's signed request and response saved as text (LF line
/// ends, a chunked body) verified with PEM keys, JWKs and JWK sets; a changed message rejected
/// with the base it was checked over; a response covering its request checked with it.
@Suite("tsec verify-signature")
struct VerifySignatureCommandTests {
    let files = try! LabFiles()
    static let rfcTime = "2021-04-20T02:08:00Z"
    static let b26 = """
        POST /foo?param=Value&Pet=dog HTTP/1.1
        Host: example.com
        Date: Tue, 20 Apr 2021 02:07:55 GMT
        Content-Type: application/json
        Content-Digest: sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:
        Content-Length: 18
        Signature-Input: sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"
        Signature: sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:

        {"hello": "world"}
        """

    @Test("RFC 9421 B.2.6 saved as text verifies with the RFC's PEM key at its time, printing the base; a changed path is rejected (exit 1) with the base it was checked over; too old without --at")
    func request() async throws {
        let message = try files.write("b26.http", Self.b26)
        let key = try files.write("ed25519.pem", RFC9421TestKey.ed25519PublicPEM)
        let arguments = ["--key", key, "--key-id", "test-key-ed25519"]
        let verified = await tsec(["verify-signature", message, "--at", Self.rfcTime] + arguments)
        #expect(verified.status == 0, "\(verified.output.stderr)")
        #expect(verified.output.stdout.hasPrefix(#"verified: sig-b26 by test-key-ed25519 (ed25519), covering "date" "@method" "@path" "@authority" "content-type" "content-length"; body not covered"#))
        #expect(verified.output.stdout.contains("\n\"@path\": /foo\n"))

        let changed = try files.write("b26-changed.http", Self.b26.replacingOccurrences(of: "POST /foo", with: "POST /bar"))
        let rejected = await tsec(["verify-signature", changed, "--at", Self.rfcTime] + arguments)
        #expect(rejected.status == 1)
        #expect(rejected.output.stdout.hasPrefix("rejected: the signature 'sig-b26' (keyid \"test-key-ed25519\") does not verify"))
        #expect(rejected.output.stdout.contains("\n\"@path\": /bar\n"), "the base it was checked over")

        let old = await tsec(["verify-signature", message] + arguments)
        #expect(old.status == 1 && old.output.stdout.contains("no longer valid"))
        let anyAge = await tsec(["verify-signature", message, "--max-age", "0", "--require", "content-digest"] + arguments)
        #expect(anyAge.status == 1 && anyAge.output.stdout.contains(#"does not cover "content-digest""#))
    }

    @Test("a response covering its request (';req'), its body chunked, verified with a JWK set and --request; without the request it is rejected; --json reports the outcome")
    func response() async throws {
        let clientKey = HTTPSignatureKey.generated(id: "client")
        let serverKey = try HTTPSignatureKey(jwk: Data(#"{"kty":"EC","crv":"P-256","kid":"test-key-ecc-p256","d":"UpuF81l-kOxbjf7T4mNSv0r5tN67Gim7rnf6EFpcYDs","x":"qIVYZVLCrPZHGHjP17CTW0_-D9Lfw0EkjqF7xB4FivA","y":"Mc4nN9LTDOBhfoUeg8Ye9WedFRhnZXZJA12Qp0zZ6F0"}"#.utf8))
        let now = Date()
        let request = try HTTPMessageSigner(key: clientKey, clock: { now })
            .signed(SecureRequest(.post, url: URL(string: "https://api.example.com/v1/pay")!, headers: [("Host", "api.example.com")], body: Data("{}".utf8)))
        let requestText = "POST /v1/pay HTTP/1.1\n" + request.headers.map { "\($0.name): \($0.value)\n" }.joined() + "Content-Length: 2\n\n{}"
        let fields: [(name: String, value: String)] = [("Content-Digest", ContentDigest.fieldValue(for: Data("hello".utf8)))]
        let signature = try HTTPMessageSigner(
            key: serverKey,
            covering: [.status, .field("content-digest"), HTTPMessageComponent.method.ofRequest, HTTPMessageComponent.field("signature", key: "sig1").ofRequest],
            clock: { now }
        ).signature(for: .response(statusCode: 200, headers: fields, answering: HTTPSignatureMessage(request)))
        let responseText = "HTTP/1.1 200 OK\nContent-Digest: \(fields[0].value)\nSignature-Input: \(signature.signatureInputMember)\nSignature: \(signature.signatureMember)\nTransfer-Encoding: chunked\n\n5\r\nhello\r\n0\r\n\r\n"
        let jwks = #"{"keys":[{"kty":"EC","crv":"P-256","kid":"test-key-ecc-p256","x":"qIVYZVLCrPZHGHjP17CTW0_-D9Lfw0EkjqF7xB4FivA","y":"Mc4nN9LTDOBhfoUeg8Ye9WedFRhnZXZJA12Qp0zZ6F0"}]}"#
        let paths = (try files.write("request.http", requestText), try files.write("response.http", responseText), try files.write("keys.json", jwks))

        let verified = await tsec(["verify-signature", paths.1, "--key", paths.2, "--request", paths.0, "--require", "content-digest", "--json"])
        #expect(verified.status == 0, "\(verified.output.stdout) \(verified.output.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(verified.output.stdout.utf8)) as? [String: Any])
        #expect(report["verified"] as? Bool == true && report["bodyVerified"] as? Bool == true && report["keyID"] as? String == "test-key-ecc-p256")
        #expect((report["base"] as? String)?.contains("\"@method\";req: POST\n") == true)

        let alone = await tsec(["verify-signature", paths.1, "--key", paths.2])
        #expect(alone.status == 1 && alone.output.stdout.contains("the response's request is not known"), "\(alone.output.stdout)")
        let tampered = try files.write("response-tampered.http", responseText.replacingOccurrences(of: "5\r\nhello", with: "5\r\nHELLO"))
        let changedBody = await tsec(["verify-signature", tampered, "--key", paths.2, "--request", paths.0])
        #expect(changedBody.status == 1 && changedBody.output.stdout.contains("does not match its Content-Digest"), "\(changedBody.output.stdout)")
    }

    @Test("bad usage and unreadable input exit 2: a PEM key without --key-id, no such file, not an HTTP message, a request without Host, a bad scheme, component or alg")
    func usage() async throws {
        let message = try files.write("b26.http", Self.b26)
        let key = try files.write("ed25519.pem", RFC9421TestKey.ed25519PublicPEM)
        let garbage = try files.write("garbage.http", "hello\n\n")
        let hostless = try files.write("hostless.http", "GET / HTTP/1.1\nAccept: */*\n\n")
        for (arguments, words) in [
            ([message, "--key", key], "needs --key-id"),
            ([files.path("absent.http"), "--key", key, "--key-id", "k"], "cannot be read"),
            ([garbage, "--key", key, "--key-id", "k"], "not an HTTP/1.1 message"),
            ([hostless, "--key", key, "--key-id", "k"], "no Host field"),
            ([message, "--key", key, "--key-id", "k", "--scheme", "ftp"], "https or http"),
            ([message, "--key", key, "--key-id", "k", "--require", #""@query-param";nom="x""#], "the parameter 'nom'"),
            ([message, "--key", key, "--key-id", "k", "--alg", "ed448"], "rsa-pss-sha512 or rsa-v1_5-sha256"),
            ([message, "--key", garbage, "--key-id", "k"], "not a PEM public key"),
        ] {
            let result = await tsec(["verify-signature"] + arguments)
            #expect(result.status == 2 && result.output.stderr.contains(words), "\(arguments): \(result.output.stderr)")
        }
    }
}

/// RFC 9421's Ed25519 test key (Appendix B.1.4), public part.
enum RFC9421TestKey {
    static let ed25519PublicPEM = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n-----END PUBLIC KEY-----\n"
}
