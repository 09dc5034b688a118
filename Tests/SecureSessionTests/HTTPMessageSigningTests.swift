import Crypto
import Foundation
import HTTPMessageSignatures
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

/// HTTP message signatures (RFC 9421) in use: every refusal of the verifier with its reason,
/// requests a ``SecureSession`` signs checked by a test server's verifier over TLS, the
/// server's signed answers checked by the client, and our signatures verified by OpenSSL.
@Suite("HTTP message signatures: signing requests and verifying")
struct HTTPMessageSigningTests {
    let lab = try! TrustLab()
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let url = URL(string: "https://api.bank.example/v1/payments?account=42")!

    static func signedRequest(by signer: HTTPMessageSigner, adding fields: [(name: String, value: String)] = []) throws -> SecureRequest {
        var request = SecureRequest(.post, url: url, headers: [("Content-Type", "application/json")] + fields, body: Data(#"{"amount":"10.00"}"#.utf8))
        request = try signer.signed(request)
        return request
    }

    static func expect(_ error: HTTPSignatureError, verifying request: SecureRequest, with verifier: HTTPMessageSignatureVerifier, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: error, sourceLocation: sourceLocation) { try verifier.verify(HTTPSignatureMessage(request)) }
    }

    @Test("a signed request: Content-Digest added and covered, created and expires, keyid; the verifier accepts it and checks the body")
    func signsRequest() throws {
        let key = HTTPSignatureKey.generated(id: "client")
        let signer = HTTPMessageSigner(key: key, includesNonce: true, includesAlgorithm: true, tag: "fapi-2", clock: { Self.now })
        let request = try Self.signedRequest(by: signer)
        #expect(request.header("Content-Digest") == ContentDigest.fieldValue(for: Data(#"{"amount":"10.00"}"#.utf8)))
        let input = try #require(request.header("Signature-Input"))
        #expect(input.hasPrefix(#"sig1=("@method" "@target-uri" "content-digest");created=1800000000;expires=1800000300;keyid="client";alg="ed25519";nonce=""#))
        #expect(input.hasSuffix(#";tag="fapi-2""#))
        let verifier = HTTPMessageSignatureVerifier(keys: [key.verificationKey], requiredComponents: [.method, .targetURI, .field("content-digest")], tag: "fapi-2", clock: { Self.now })
        let verified = try verifier.verify(HTTPSignatureMessage(request))
        #expect(verified.bodyVerified && verified.parameters.tag == "fapi-2" && verified.parameters.nonce?.count == 22)
        let again = try Self.signedRequest(by: signer)
        #expect(again.header("Signature-Input") != input, "a new nonce each time")
    }

    @Test("the verifier refuses, each with its reason: no signature, an unknown label, an unknown key, another alg, a required component not covered, too old, expired, from the future, no created, another tag, a changed field, a changed body, a signature of another key")
    func refusals() throws {
        let key = HTTPSignatureKey.generated(id: "client")
        let signer = HTTPMessageSigner(key: key, covering: [.method, .targetURI, .field("content-type")], lifetime: .seconds(60), tag: "t", clock: { Self.now })
        let request = try Self.signedRequest(by: signer)
        let base = HTTPMessageSignatureVerifier(keys: [key.verificationKey], clock: { Self.now })
        var verifier = base

        Self.expect(.noSignature("the message has no Signature-Input field"), verifying: SecureRequest(.get, url: Self.url), with: verifier)
        verifier.label = "sig2"
        Self.expect(.noSignature("none labelled 'sig2' (the message has 'sig1')"), verifying: request, with: verifier)
        Self.expect(.unknownKey("client"), verifying: request, with: HTTPMessageSignatureVerifier(keys: [HTTPSignatureKey.generated(id: "other").verificationKey]))
        let hmac = try HTTPSignatureVerificationKey(id: "client", sharedSecret: Data(repeating: 7, count: 32))
        let declaring = try Self.signedRequest(by: HTTPMessageSigner(key: key, includesAlgorithm: true, clock: { Self.now }))
        Self.expect(.algorithmMismatch(declared: "ed25519", key: .hmacSHA256), verifying: declaring, with: HTTPMessageSignatureVerifier(keys: [hmac], clock: { Self.now }))
        verifier = base
        verifier.requiredComponents = [.method, .field("content-digest"), .authority]
        Self.expect(.requiredComponentsNotCovered([#""@authority""#]), verifying: request, with: verifier)

        let later = HTTPMessageSignatureVerifier(keys: [key.verificationKey], maximumAge: .seconds(30), clock: { Self.now.addingTimeInterval(45) })
        #expect(throws: HTTPSignatureError.self) { try later.verify(HTTPSignatureMessage(request)) }
        let afterExpiry = HTTPMessageSignatureVerifier(keys: [key.verificationKey], maximumAge: nil, clock: { Self.now.addingTimeInterval(61) })
        do {
            _ = try afterExpiry.verify(HTTPSignatureMessage(request))
            Issue.record("an expired signature was accepted")
        } catch {
            #expect(error.description.contains("expired at"))
        }
        let before = HTTPMessageSignatureVerifier(keys: [key.verificationKey], clock: { Self.now.addingTimeInterval(-61) })
        Self.expect(.createdInFuture(Self.now), verifying: request, with: before)
        let withoutCreated = request.replacing("Signature-Input", with: #"sig1=("@method");keyid="client""#)
        Self.expect(.missingCreated, verifying: withoutCreated, with: base)
        verifier = base
        verifier.tag = "fapi-2"
        Self.expect(.tagMismatch(expected: "fapi-2", found: "t"), verifying: request, with: verifier)

        let changedType = request.replacing("Content-Type", with: "text/plain")
        do {
            _ = try base.verify(HTTPSignatureMessage(changedType))
            Issue.record("a changed field was accepted")
        } catch {
            guard case .invalidSignature(let label, let keyID, let signedBase) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(label == "sig1" && keyID == "client" && signedBase.contains("\"content-type\": text/plain\n"))
        }
        var changedBody = request
        changedBody.body = Data(#"{"amount":"99999.00"}"#.utf8)
        do {
            _ = try base.verify(HTTPSignatureMessage(changedBody))
            Issue.record("a changed body was accepted")
        } catch {
            guard case .contentDigestMismatch = error else { Issue.record("\(error)"); return }
        }
        let impostor = HTTPSignatureKey.generated(id: "client")
        let forged = try Self.signedRequest(by: HTTPMessageSigner(key: impostor, clock: { Self.now }))
        #expect(throws: HTTPSignatureError.self) { try base.verify(HTTPSignatureMessage(forged)) }
    }

    @Test(
        "a captured signature re-encoded is no new signature, for every algorithm: base64 with its unused bits set is refused, and the same base signed with other bytes (ECDSA's (r, n - s), a fresh RSA-PSS salt, a signature made again) is a replay",
        arguments: HTTPSignatureAlgorithm.allCases
    )
    func reencodedReplays(_ algorithm: HTTPSignatureAlgorithm) throws {
        let key = HTTPSignatureKey.generated(id: "client", algorithm: algorithm)
        let signer = HTTPMessageSigner(key: key, lifetime: .seconds(60), clock: { Self.now })
        var verifier = HTTPMessageSignatureVerifier(keys: [key.verificationKey], clock: { Self.now })
        verifier.replayGuard = HTTPSignatureReplayGuard()
        let original = try Self.signedRequest(by: signer)
        let field = try #require(original.header("Signature"))
        #expect(throws: Never.self) { try verifier.verify(HTTPSignatureMessage(original)) }

        // The same bytes in another base64 spelling: the last character before the padding
        // with its unused bits set. Refused as malformed, before any key is tried.
        let encoded = String(field.drop { $0 != ":" }.dropFirst().dropLast())
        let bytes = try #require(Data(base64Encoded: encoded))
        let padding = encoded.reversed().prefix { $0 == "=" }.count
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var characters = Array(encoded)
        let last = characters.count - padding - 1
        if padding > 0, let value = alphabet.firstIndex(of: characters[last]) {
            characters[last] = alphabet[value | (padding == 1 ? 0b11 : 0b1111)]
        }
        let respelled = String(characters)
        if respelled != encoded {
            #expect(Data(base64Encoded: respelled) == bytes, "Foundation reads both spellings as the same signature")
            let variant = original.replacing("Signature", with: "sig1=:\(respelled):")
            #expect {
                try verifier.verify(HTTPSignatureMessage(variant))
            } throws: { error in
                guard let error = error as? HTTPSignatureError, case .malformedField("Signature", let reason) = error else { return false }
                return reason.contains("not canonical base64")
            }
        }

        // The same base signed with other bytes: for ECDSA, s replaced by n - s (a valid
        // signature of its own); otherwise the request signed again (RSA-PSS and ECDSA draw fresh
        // randomness; Ed25519, RSA PKCS#1 v1.5 and HMAC give the same bytes).
        let otherBytes: Data
        switch algorithm {
        case .ecdsaP256SHA256, .ecdsaP384SHA384:
            let order: [UInt8] = algorithm == .ecdsaP256SHA256
                ? Self.bytes(hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
                : Self.bytes(hex: "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973")
            let half = bytes.count / 2
            otherBytes = bytes.prefix(half) + Data(Self.subtract(Array(bytes.suffix(half)), from: order))
        default:
            let resigned = try #require(try Self.signedRequest(by: signer).header("Signature"))
            otherBytes = try #require(Data(base64Encoded: String(resigned.drop { $0 != ":" }.dropFirst().dropLast())))
        }
        let again = original.replacing("Signature", with: "sig1=:\(otherBytes.base64EncodedString()):")
        Self.expect(.replayed("keyid \"client\", signature base \(try Self.baseDigest(of: original, key: key))"), verifying: again, with: verifier)
    }

    /// The bytes of hexadecimal text (the curves' orders).
    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)! }
    }

    /// `minuend - subtrahend` of two big-endian numbers of one length.
    static func subtract(_ subtrahend: [UInt8], from minuend: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: minuend.count)
        var borrow = 0
        for index in stride(from: minuend.count - 1, through: 0, by: -1) {
            var value = Int(minuend[index]) - Int(subtrahend[index]) - borrow
            borrow = value < 0 ? 1 : 0
            if value < 0 { value += 256 }
            result[index] = UInt8(value)
        }
        return result
    }

    /// The digest a replay guard knows `request`'s signature by.
    static func baseDigest(of request: SecureRequest, key: HTTPSignatureKey) throws -> String {
        let verified = try HTTPMessageSignatureVerifier(keys: [key.verificationKey], clock: { Self.now }).verify(HTTPSignatureMessage(request))
        return SHA256.hash(data: Data(verified.base.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    @Test("a replay guard refuses a signature accepted before while it is valid (known by its nonce, or by its signed base without one), takes it again once it has expired, refuses a signature with no end, and when full refuses new ones rather than forget; requiresNonce refuses a signature without one")
    func replays() throws {
        let key = HTTPSignatureKey.generated(id: "client")
        let clock = ManualClock(Self.now)
        var verifier = HTTPMessageSignatureVerifier(keys: [key.verificationKey], maximumAge: .seconds(60), clock: { clock.now })
        verifier.replayGuard = HTTPSignatureReplayGuard()
        let withNonce = try Self.signedRequest(by: HTTPMessageSigner(key: key, lifetime: nil, includesNonce: true, clock: { Self.now }))
        let nonce = try #require(try verifier.verify(HTTPSignatureMessage(withNonce)).parameters.nonce)
        Self.expect(.replayed(#"keyid "client", nonce "\#(nonce)""#), verifying: withNonce, with: verifier)
        let another = try Self.signedRequest(by: HTTPMessageSigner(key: key, lifetime: nil, includesNonce: true, clock: { Self.now }))
        #expect(throws: Never.self) { try verifier.verify(HTTPSignatureMessage(another)) }

        let plain = try Self.signedRequest(by: HTTPMessageSigner(key: key, lifetime: .seconds(30), clock: { Self.now }))
        #expect(throws: Never.self) { try verifier.verify(HTTPSignatureMessage(plain)) }
        do {
            _ = try verifier.verify(HTTPSignatureMessage(plain))
            Issue.record("a replay without a nonce was accepted")
        } catch {
            guard case .replayed(let identity) = error else { Issue.record("\(error)"); return }
            #expect(identity.hasPrefix(#"keyid "client", signature base "#))
        }
        // Past its expires (30 s) the signature is refused for its age, and the guard forgets it.
        clock.now = Self.now.addingTimeInterval(31)
        #expect(throws: HTTPSignatureError.self) { try verifier.verify(HTTPSignatureMessage(plain)) }
        #expect(verifier.replayGuard?.count == 3)

        var unbounded = verifier
        unbounded.maximumAge = nil
        let forever = try Self.signedRequest(by: HTTPMessageSigner(key: key, lifetime: nil, clock: { Self.now }))
        Self.expect(.unboundedLifetime, verifying: forever, with: unbounded)

        var small = HTTPMessageSignatureVerifier(keys: [key.verificationKey], maximumAge: .seconds(60), clock: { clock.now })
        small.replayGuard = HTTPSignatureReplayGuard(capacity: 2)
        clock.now = Self.now
        for _ in 0..<2 {
            _ = try small.verify(HTTPSignatureMessage(try Self.signedRequest(by: HTTPMessageSigner(key: key, includesNonce: true, clock: { Self.now }))))
        }
        let third = try Self.signedRequest(by: HTTPMessageSigner(key: key, includesNonce: true, clock: { Self.now }))
        Self.expect(.replayGuardFull(2), verifying: third, with: small)
        // Once the two have expired, there is room again.
        clock.now = Self.now.addingTimeInterval(61)
        let later = try Self.signedRequest(by: HTTPMessageSigner(key: key, includesNonce: true, clock: { clock.now }))
        #expect(throws: Never.self) { try small.verify(HTTPSignatureMessage(later)) }

        var nonceRequired = HTTPMessageSignatureVerifier(keys: [key.verificationKey], clock: { Self.now })
        nonceRequired.requiresNonce = true
        Self.expect(.missingNonce, verifying: plain, with: nonceRequired)
    }

    @Test("malformed fields and components are refused with their reason: Signature-Input not a dictionary, a member not an inner list, no Signature for the label, an unknown component parameter, an uppercase name, a component covered twice, @status in a request, ;req in a request")
    func malformed() throws {
        let key = HTTPSignatureKey.generated(id: "client")
        let request = try Self.signedRequest(by: HTTPMessageSigner(key: key, clock: { Self.now }))
        let verifier = HTTPMessageSignatureVerifier(keys: [key.verificationKey], clock: { Self.now })
        let cases: [(String, String, String)] = [
            ("Signature-Input", "sig1=(", "malformed Signature-Input: not a structured dictionary"),
            ("Signature-Input", "sig1=\"text\"", "'sig1' is not an inner list"),
            ("Signature", "other=:AAAA:", "no byte sequence labelled 'sig1'"),
            ("Signature-Input", #"sig1=("@method";xyz);created=1800000000;keyid="client""#, "the parameter 'xyz' is not one RFC 9421 defines"),
            ("Signature-Input", #"sig1=("Content-Type");created=1800000000;keyid="client""#, "lowercase"),
            ("Signature-Input", #"sig1=("@method" "@method");created=1800000000;keyid="client""#, "covered twice"),
            ("Signature-Input", #"sig1=("@status");created=1800000000;keyid="client""#, "@status is a response's"),
            ("Signature-Input", #"sig1=("@method";req);created=1800000000;keyid="client""#, "this is a request"),
            ("Signature-Input", #"sig1=("@signature-params");created=1800000000;keyid="client""#, "never a covered component"),
            ("Signature-Input", #"sig1=("@nonsense");created=1800000000;keyid="client""#, "not a derived component"),
        ]
        for (field, value, words) in cases {
            do {
                _ = try verifier.verify(HTTPSignatureMessage(request.replacing(field, with: value)))
                Issue.record("\(field): \(value) was accepted")
            } catch {
                #expect(error.description.contains(words), "\(value): \(error)")
            }
        }
        #expect(throws: HTTPSignatureError.self) { try HTTPMessageComponent(parsing: "\"unterminated") }
        #expect(try HTTPMessageComponent(parsing: #""@query-param";name="Pet""#) == .queryParameter("Pet"))
        #expect(try HTTPMessageComponent(parsing: "content-type") == .field("content-type"))
    }

    @Test("signing refuses: a covered field the request lacks, a streamed body to digest, a GET's content-length, a label already used, a label that is no key; keys: garbage, a short HMAC secret, RSA of 1024 bits, an encrypted key")
    func signingRefusals() throws {
        let key = HTTPSignatureKey.generated(id: "client")
        #expect(throws: HTTPSignatureError.componentNotInMessage(#""x-request-id""#, reason: "the message has no field 'x-request-id'")) {
            try HTTPMessageSigner(key: key, covering: [.field("x-request-id")]).signed(SecureRequest(.get, url: Self.url))
        }
        var streamed = SecureRequest(.post, url: Self.url)
        streamed.bodyStream = RequestBodyStream(length: nil) { _ in }
        #expect(throws: HTTPSignatureError.self) { try HTTPMessageSigner(key: key).signed(streamed) }
        #expect(throws: HTTPSignatureError.self) { try HTTPMessageSigner(key: key, covering: [.field("content-length")]).signed(SecureRequest(.get, url: Self.url)) }
        let once = try HTTPMessageSigner(key: key).signed(SecureRequest(.get, url: Self.url))
        #expect(throws: HTTPSignatureError.malformedField("Signature-Input", reason: "the request already has a signature labelled 'sig1'")) {
            try HTTPMessageSigner(key: key).signed(once)
        }
        let twice = try HTTPMessageSigner(key: key, covering: [.method, .field("signature", key: "sig1")], label: "proxy").signed(once)
        #expect(twice.headers.filter { $0.name == "Signature" }.count == 2)
        #expect(throws: HTTPSignatureError.self) { try HTTPMessageSigner(key: key, label: "Sig 1").signed(SecureRequest(.get, url: Self.url)) }

        #expect(throws: HTTPSignatureError.unusableKey("not a PEM Ed25519, P-256, P-384 or RSA private key")) { try HTTPSignatureKey(id: "k", pemEncoded: "garbage") }
        #expect(throws: HTTPSignatureError.unusableKey("an HMAC secret of 16 bytes: hmac-sha256 needs 32 or more")) { try HTTPSignatureKey(id: "k", sharedSecret: Data(count: 16)) }
        let weakRSA = try shell("openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 2>/dev/null")
        #expect(throws: HTTPSignatureError.unusableKey("an RSA key of 1024 bits: HTTP message signatures need 2048 or more")) { try HTTPSignatureKey(id: "k", pemEncoded: weakRSA) }
        let encrypted = try shell("openssl genpkey -algorithm ED25519 -aes256 -pass pass:secret 2>/dev/null")
        #expect(throws: HTTPSignatureError.self) { try HTTPSignatureKey(id: "k", pemEncoded: encrypted) }
        #expect(throws: HTTPSignatureError.unusableKey("not a PEM public key (PUBLIC KEY) or certificate")) { try HTTPSignatureVerificationKey(id: "k", pemEncoded: "garbage") }
        #expect("\(key)" == #"HTTPSignatureKey(ed25519, keyid "client")"#)
    }

    @Test("OpenSSL verifies our signature bases: Ed25519, ECDSA P-256 (as DER), RSA-PSS-SHA512 with a 64-byte salt, RSA PKCS#1 v1.5")
    func openSSLVerifies() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("httpsig-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let commands: [(String, HTTPSignatureAlgorithm, String)] = [
            ("ED25519", .ed25519, "openssl pkeyutl -verify -pubin -inkey PUB -rawin -in BASE -sigfile SIG"),
            ("EC -pkeyopt ec_paramgen_curve:P-256", .ecdsaP256SHA256, "openssl dgst -sha256 -verify PUB -signature SIG.der BASE"),
            ("RSA -pkeyopt rsa_keygen_bits:2048", .rsaPSSSHA512, "openssl dgst -sha512 -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:64 -verify PUB -signature SIG BASE"),
            ("RSA -pkeyopt rsa_keygen_bits:2048", .rsaPKCS1v15SHA256, "openssl dgst -sha256 -verify PUB -signature SIG BASE"),
        ]
        for (index, (generation, algorithm, verification)) in commands.enumerated() {
            let prefix = "\(folder)/\(index)"
            let pem = try shell("openssl genpkey -algorithm \(generation) 2>/dev/null")
            try pem.write(toFile: prefix + ".key", atomically: true, encoding: .utf8)
            _ = try shell("openssl pkey -in \(prefix).key -pubout -out \(prefix).pub")
            let key = try HTTPSignatureKey(id: "k", pemEncoded: pem, rsaAlgorithm: algorithm == .rsaPKCS1v15SHA256 ? .rsaPKCS1v15SHA256 : .rsaPSSSHA512)
            #expect(key.algorithm == algorithm)
            let request = try Self.signedRequest(by: HTTPMessageSigner(key: key, clock: { Self.now }))
            let signature = try HTTPMessageSignatureVerifier(keys: [key.verificationKey], clock: { Self.now }).verify(HTTPSignatureMessage(request))
            try Data(signature.base.utf8).write(to: URL(fileURLWithPath: prefix + ".base"))
            let member = try #require(request.header("Signature"))
            let bytes = try #require(Data(base64Encoded: String(member.dropFirst("sig1=:".count).dropLast())))
            try bytes.write(to: URL(fileURLWithPath: prefix + ".sig"))
            if algorithm == .ecdsaP256SHA256 {
                // OpenSSL reads ECDSA signatures as DER; ours are r || s.
                let r = bytes.prefix(32).hexString, s = bytes.suffix(32).hexString
                _ = try shell("printf 'asn1=SEQUENCE:sig\\n[sig]\\nr=INTEGER:0x\(r)\\ns=INTEGER:0x\(s)\\n' > \(prefix).cnf && openssl asn1parse -genconf \(prefix).cnf -out \(prefix).sig.der -noout")
            }
            let command = verification.replacingOccurrences(of: "PUB", with: prefix + ".pub").replacingOccurrences(of: "BASE", with: prefix + ".base").replacingOccurrences(of: "SIG", with: prefix + ".sig")
            // OpenSSL exits 0 only when the signature verifies.
            #expect(throws: Never.self, "\(algorithm)") { try shell(command) }
            // And a changed base does not verify.
            try Data((signature.base + " ").utf8).write(to: URL(fileURLWithPath: prefix + ".base"))
            #expect(throws: ShellFailure.self, "\(algorithm)") { try shell(command) }
        }
    }

    @Test("over TLS: a session signing with an interceptor reaches a server that verifies each request (body included); a server requiring what is not covered answers 401 with the reason; the server's signed answer, covering the request's signature, verifies on the client")
    func endToEnd() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let clientKey = HTTPSignatureKey.generated(id: "client-2026")
        let serverKey = HTTPSignatureKey.generated(id: "server-2026", algorithm: .ecdsaP256SHA256)
        server.signatures.verifier = HTTPMessageSignatureVerifier(keys: [clientKey.verificationKey], requiredComponents: [.method, .targetURI, .field("content-digest")])
        let session = lab.session { $0.features.interceptor = HTTPMessageSigner(key: clientKey) }

        var post = SecureRequest(.post, url: server.url("/signed?account=42"), headers: [("Content-Type", "application/json")], body: Data("{}".utf8))
        post.validation = ResponseValidation.none
        let posted = try await session.send(post)
        #expect(posted.statusCode == 200 && posted.text == "verified sig1 by client-2026, body checked: true", "\(posted.text)")
        let base = try #require(server.signatures.verifiedBases.last)
        #expect(base.hasPrefix("\"@method\": POST\n\"@target-uri\": https://127.0.0.1:\(server.port)/signed?account=42\n\"content-digest\": sha-256=:"))
        var get = SecureRequest(.get, url: server.url("/signed"))
        get.validation = ResponseValidation.none
        let fetched = try await session.send(get)
        #expect(fetched.statusCode == 401 && fetched.text.contains(#"does not cover "content-digest""#), "a GET has no body to cover: \(fetched.text)")

        server.signatures.verifier = HTTPMessageSignatureVerifier(keys: [clientKey.verificationKey], requiredComponents: [.field("x-idempotency-key")])
        var request = SecureRequest(.get, url: server.url("/signed"))
        request.validation = ResponseValidation.none
        let refused = try await session.send(request)
        #expect(refused.statusCode == 401 && refused.text.contains(#"does not cover "x-idempotency-key""#), "\(refused.text)")

        // The server signs its answer, covering the request's method and signature.
        server.signatures.verifier = HTTPMessageSignatureVerifier(keys: [clientKey.verificationKey])
        server.signatures.responseSigner = HTTPMessageSigner(
            key: serverKey,
            covering: [.status, .field("content-digest"), HTTPMessageComponent.method.ofRequest, HTTPMessageComponent.field("signature", key: "sig1").ofRequest]
        )
        // The session signed the request through its interceptor; the response keeps it as sent.
        let answer = try await session.send(SecureRequest(.put, url: server.url("/signed"), body: Data("x".utf8)))
        let sent = try #require(answer.sentRequest)
        #expect(sent.header("Signature-Input") != nil && sent.method == .put)
        let responseVerifier = HTTPMessageSignatureVerifier(keys: [serverKey.verificationKey], requiredComponents: [.status, .field("content-digest")])
        let verified = try responseVerifier.verify(HTTPSignatureMessage(answer))
        #expect(verified.bodyVerified && verified.keyID == "server-2026")
        #expect(verified.base.contains("\"@method\";req: PUT\n\"signature\";key=\"sig1\";req: :"))
        // Answering another request (another signature), it does not verify.
        let other = try HTTPMessageSigner(key: clientKey).signed(SecureRequest(.put, url: server.url("/signed"), body: Data("y".utf8)))
        #expect(throws: HTTPSignatureError.self) { try responseVerifier.verify(HTTPSignatureMessage(answer, answering: other)) }
        // A response made by hand, without its request, cannot give the request's components.
        let detached = HTTPSignatureMessage.response(statusCode: answer.statusCode, headers: answer.headers, body: answer.body)
        #expect(throws: HTTPSignatureError.componentNotInMessage(#""@method";req"#, reason: "the response's request is not known")) {
            try responseVerifier.verify(detached)
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("signatures stay with their origin: dropped on a redirect to another origin, kept on one to the same")
    func redirects() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let key = HTTPSignatureKey.generated(id: "client")
        let session = lab.session { $0.features.interceptor = HTTPMessageSigner(key: key, covering: [.method]) }
        let kept = try await session.get(server.url("/redirect?to=/headers"))
        #expect(kept.text.contains("\"signature-input\""), "\(kept.text)")
        let dropped = try await session.get(server.url("/redirect?to=" + server.url("/headers", host: "localhost").absoluteString))
        #expect(!dropped.text.contains("\"signature"), "\(dropped.text)")
        await session.shutdown()
        await server.stop()
    }
}

extension SecureRequest {
    /// The request with the field `name` replaced by one line of `value`.
    func replacing(_ name: String, with value: String) -> SecureRequest {
        var request = self
        request.headers.removeAll { $0.name.lowercased() == name.lowercased() }
        request.headers.append((name, value))
        return request
    }
}

extension Data {
    fileprivate var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
