import Foundation
import HTTPMessageSignatures
import NIOConcurrencyHelpers
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

/// A session that accepts some hosts' responses only signed
/// (``SecureSessionConfiguration/Responses/signatures``): against the test server's `/signed`,
/// which signs its answers with the key the test gives it, and a scripted server for answers
/// changed after they were signed.
@Suite("Responses accepted only signed")
struct ResponseSignatureTests {
    let lab = try! TrustLab()
    let clientKey = HTTPSignatureKey.generated(id: "client-2026")
    let serverKey = HTTPSignatureKey.generated(id: "server-2026")

    /// A server whose `/signed` takes the session's signed requests and signs its answers with
    /// `signer` (none: unsigned).
    private func server(signingWith signer: HTTPMessageSigner?) async throws -> HTTPTestServer {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        server.signatures.verifier = HTTPMessageSignatureVerifier(keys: [clientKey.verificationKey])
        server.signatures.responseSigner = signer
        return server
    }

    /// A session that signs its requests and requires the answers of `hosts` signed by the
    /// server's key (`requiredComponents`, the body's coverage as `requiresBodyCoverage` says).
    private func session(
        hosts: [HostPattern] = [],
        requiredComponents: [HTTPMessageComponent] = [.status],
        requiresBodyCoverage: Bool = true,
        keys: [HTTPSignatureVerificationKey]? = nil
    ) -> SecureSession {
        let verifier = HTTPMessageSignatureVerifier(keys: keys ?? [serverKey.verificationKey], requiredComponents: requiredComponents)
        return lab.session {
            $0.features.interceptor = HTTPMessageSigner(key: clientKey)
            $0.responses.signatures = ResponseSignatureRequirement(verifier: verifier, hosts: hosts, requiresBodyCoverage: requiresBodyCoverage)
        }
    }

    private static func rejection(_ error: any Error) -> (status: Int, reason: HTTPSignatureError)? {
        guard case .responseSignatureRejected(let status, let reason)? = error.sessionFailureReason else { return nil }
        return (status, reason)
    }

    private var coveringBody: HTTPMessageSigner {
        HTTPMessageSigner(key: serverKey, covering: [.status, .field("content-digest"), HTTPMessageComponent.field("signature", key: "sig1").ofRequest])
    }

    @Test("a signed answer over its body and the request's signature is the caller's; the verifier saw the request the last attempt sent")
    func accepted() async throws {
        let server = try await server(signingWith: coveringBody)
        defer { Task { await server.stop() } }
        let session = session(requiredComponents: [.status, HTTPMessageComponent.field("signature", key: "sig1").ofRequest])
        defer { Task { await session.shutdown() } }
        let response = try await session.send(SecureRequest(.put, url: server.url("/signed"), body: Data("order".utf8)))
        #expect(response.statusCode == 200)
        #expect(response.text == "verified sig1 by client-2026, body checked: true")
        // An error answer is verified before its status is judged: signed, it is the caller's error.
        server.signatures.verifier = HTTPMessageSignatureVerifier(keys: [clientKey.verificationKey], requiredComponents: [.field("x-missing")])
        await #expect {
            try await session.send(SecureRequest(.put, url: server.url("/signed"), body: Data("order".utf8)))
        } throws: { error in
            guard case .unacceptableStatus(401, _)? = error.sessionFailureReason else { return false }
            return true
        }
    }

    @Test("no signature, another key, a signature over the head alone: refused, whatever the status; a host not named is not looked at; the body's coverage may be waived")
    func refused() async throws {
        let server = try await server(signingWith: nil)
        defer { Task { await server.stop() } }
        let strict = session()
        defer { Task { await strict.shutdown() } }
        let request = SecureRequest(.put, url: server.url("/signed"), body: Data("order".utf8))

        await #expect { try await strict.send(request) } throws: { error in
            guard let (status, reason) = Self.rejection(error), case .noSignature = reason else { return false }
            return status == 200 && "\(error)".contains("the response (status 200) was refused")
        }
        // A 404 unsigned is refused as unsigned, not reported as a 404.
        await #expect { try await strict.get(server.url("/no-such-route")) } throws: { error in
            Self.rejection(error)?.status == 404
        }

        server.signatures.responseSigner = HTTPMessageSigner(key: HTTPSignatureKey.generated(id: "server-2026"), covering: [.status, .field("content-digest")])
        await #expect { try await strict.send(request) } throws: { error in
            guard case .invalidSignature(_, let keyID, _)? = Self.rejection(error)?.reason else { return false }
            return keyID == "server-2026"
        }

        server.signatures.responseSigner = HTTPMessageSigner(key: serverKey, covering: [.status])
        await #expect { try await strict.send(request) } throws: { error in
            Self.rejection(error)?.reason == .requiredComponentsNotCovered(["content-digest"])
        }
        let waiving = session(requiresBodyCoverage: false)
        defer { Task { await waiving.shutdown() } }
        #expect(try await waiving.send(request).statusCode == 200)

        // Another host's answers are not looked at.
        server.signatures.responseSigner = nil
        let elsewhere = session(hosts: [try HostPattern("api.bank.example")])
        defer { Task { await elsewhere.shutdown() } }
        #expect(try await elsewhere.send(request).statusCode == 200)
        let named = session(hosts: [try HostPattern("127.0.0.1")])
        defer { Task { await named.shutdown() } }
        await #expect { try await named.send(request) } throws: { Self.rejection($0) != nil }
    }

    @Test("a body changed after it was signed fails its Content-Digest; so does a header the signature covers")
    func tampered() async throws {
        let signer = HTTPMessageSigner(key: serverKey, covering: [.status, .field("content-type"), .field("content-digest")])
        let body = Data("{\"amount\":\"10.00\"}".utf8)
        let fields = [("Content-Type", "application/json"), ("Content-Digest", ContentDigest.fieldValue(for: body))]
        let signature = try signer.signature(for: HTTPSignatureMessage.response(statusCode: 200, headers: fields, body: body))
        func answer(body: String, contentType: String = "application/json") -> String {
            "HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nContent-Digest: \(fields[1].1)\r\nSignature-Input: \(signature.signatureInputMember)\r\nSignature: \(signature.signatureMember)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }
        let server = try await ScriptedResponseServer(responses: [
            answer(body: "{\"amount\":\"10.00\"}"),
            answer(body: "{\"amount\":\"99.00\"}"),
            answer(body: "{\"amount\":\"10.00\"}", contentType: "text/plain"),
        ])
        let session = lab.session {
            $0.responses.signatures = ResponseSignatureRequirement(verifier: HTTPMessageSignatureVerifier(keys: [serverKey.verificationKey], requiredComponents: [.status]))
        }
        defer { Task { await session.shutdown() } }
        #expect(try await session.get(server.url).text == "{\"amount\":\"10.00\"}")
        await #expect { try await session.get(server.url) } throws: { error in
            guard case .contentDigestMismatch? = Self.rejection(error)?.reason else { return false }
            return true
        }
        await #expect { try await session.get(server.url) } throws: { error in
            guard case .invalidSignature? = Self.rejection(error)?.reason else { return false }
            return true
        }
        await server.stop()
    }

    @Test("streams, bytes(for:) and downloads are verified as they arrive: the signature before the first byte, the body against its digest when it ends; redirects onto a named host included")
    func arrivingResponses() async throws {
        let server = try await server(signingWith: coveringBody)
        defer { Task { await server.stop() } }
        let session = session(hosts: [try HostPattern("127.0.0.1")])
        defer { Task { await session.shutdown() } }
        let expected = "verified sig1 by client-2026, body checked: false"

        let parts = PartsBox()
        let streamed = try await session.stream(SecureRequest(url: server.url("/signed"))) { parts.append($0) }
        #expect(streamed.statusCode == 200 && String(decoding: parts.all, as: UTF8.self) == expected)
        let (head, body) = try await session.bytes(for: SecureRequest(url: server.url("/signed")))
        var read = Data()
        for try await chunk in body { read.append(contentsOf: chunk) }
        #expect(head.statusCode == 200 && String(decoding: read, as: UTF8.self) == expected)
        let directory = NSTemporaryDirectory() + "tsec-signed-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await session.download(SecureRequest(url: server.url("/signed")), to: directory + "/verified")
        #expect(try String(contentsOfFile: directory + "/verified", encoding: .utf8) == expected)
        // Redirected from a host not named onto a named one, verified there: the request's own
        // signature stays behind (another origin), so the answer is a 401, signed, and judged by
        // its status once its signature holds.
        server.signatures.responseSigner = HTTPMessageSigner(key: serverKey, covering: [.status, .field("content-digest")])
        let redirect = SecureRequest(url: server.url("/redirect?to=" + server.url("/signed").absoluteString, host: "localhost"))
        await #expect { _ = try await session.stream(redirect) { _ in } } throws: { error in
            guard case .unacceptableStatus(401, let body)? = error.sessionFailureReason else { return false }
            return String(decoding: body, as: UTF8.self).contains("no signature")
        }

        // Unsigned: refused before anything is handed over or written.
        server.signatures.responseSigner = nil
        let none = PartsBox()
        await #expect { _ = try await session.stream(SecureRequest(url: server.url("/signed"))) { none.append($0) } } throws: { Self.rejection($0) != nil }
        #expect(none.all.isEmpty)
        await #expect { _ = try await session.bytes(for: SecureRequest(url: server.url("/signed"))) } throws: { Self.rejection($0) != nil }
        await #expect { _ = try await session.download(SecureRequest(url: server.url("/signed")), to: directory + "/unsigned") } throws: { Self.rejection($0) != nil }
        #expect(!FileManager.default.fileExists(atPath: directory + "/unsigned"))
        await #expect { _ = try await session.stream(redirect) { _ in } } throws: { Self.rejection($0)?.status == 401 }
        // A stream to a host not named is not looked at.
        #expect(try await session.stream(SecureRequest(url: server.url("/hello", host: "localhost"))) { _ in }.statusCode == 200)
    }

    @Test("a body changed after signing: a stream hands it over and then fails, a download's file is never put in place; the bytes of a partial file, a device and a WebSocket are refused")
    func arrivingTampered() async throws {
        let signer = HTTPMessageSigner(key: serverKey, covering: [.status, .field("content-digest")])
        let body = Data("{\"amount\":\"10.00\"}".utf8)
        let digest = ContentDigest.fieldValue(for: body)
        let signature = try signer.signature(for: HTTPSignatureMessage.response(statusCode: 200, headers: [("Content-Digest", digest)], body: body))
        let changed = "{\"amount\":\"99.00\"}"
        let answer = "HTTP/1.1 200 OK\r\nContent-Digest: \(digest)\r\nSignature-Input: \(signature.signatureInputMember)\r\nSignature: \(signature.signatureMember)\r\nContent-Length: \(changed.utf8.count)\r\n\r\n\(changed)"
        let server = try await ScriptedResponseServer(responses: [answer])
        defer { Task { await server.stop() } }
        let session = lab.session {
            $0.responses.signatures = ResponseSignatureRequirement(verifier: HTTPMessageSignatureVerifier(keys: [serverKey.verificationKey], requiredComponents: [.status]))
        }
        defer { Task { await session.shutdown() } }
        func mismatch(_ error: any Error) -> Bool {
            guard case .contentDigestMismatch(let detail)? = Self.rejection(error)?.reason else { return false }
            return detail.contains("for the 18 bytes received")
        }
        let parts = PartsBox()
        await #expect { _ = try await session.stream(SecureRequest(url: server.url)) { parts.append($0) } } throws: { mismatch($0) }
        #expect(String(decoding: parts.all, as: UTF8.self) == changed, "a stream's consumer has the bytes: the error says they do not hold")
        let directory = NSTemporaryDirectory() + "tsec-tampered-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        await #expect { _ = try await session.download(SecureRequest(url: server.url), to: directory + "/body") } throws: { mismatch($0) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "no file, no partial file")

        func refused(_ error: any Error, saying words: String) -> Bool {
            guard case .invalidRequest(let reason)? = error.sessionFailureReason else { return false }
            return reason.contains(words)
        }
        let requests = server.requests
        _ = FileManager.default.createFile(atPath: directory + "/partial", contents: Data("{\"amo".utf8))
        await #expect {
            _ = try await session.download(SecureRequest(url: server.url), to: directory + "/partial", continuingPartialFile: true)
        } throws: { refused($0, saying: "the bytes of a partial file came with no answer to verify") }
        await #expect { _ = try await session.download(SecureRequest(url: server.url), to: "/dev/null") } throws: { refused($0, saying: "download to a file") }
        await #expect {
            try await session.webSocket(URL(string: "ws://127.0.0.1:1/ws")!) { _ in }
        } throws: { refused($0, saying: "a WebSocket's messages carry none") }
        #expect(server.requests == requests, "nothing was sent")
    }

    @Test("requests to a named host ask for the signature wanted (Accept-Signature, RFC 9421 §5.1): label, components, content-digest, keyid and alg of a single key, created, tag; a request's own field is kept; not for other hosts, nor when told not to")
    func asksForSignatures() async throws {
        let server = try await server(signingWith: HTTPMessageSigner(key: serverKey, covering: [.status, .field("content-digest")], tag: "bank"))
        defer { Task { await server.stop() } }
        let heads = NIOLockedValueBox<[SentRequestHead]>([])
        var verifier = HTTPMessageSignatureVerifier(keys: [serverKey.verificationKey], requiredComponents: [.status], tag: "bank")
        let askedFor = #"sig1=("@status" "content-digest");keyid="server-2026";alg="ed25519";created;tag="bank""#
        #expect(ResponseSignatureRequirement(verifier: verifier).acceptSignatureField == askedFor)
        let session = lab.session {
            $0.features.interceptor = HTTPMessageSigner(key: clientKey)
            $0.responses.signatures = ResponseSignatureRequirement(verifier: verifier, hosts: [try! HostPattern("127.0.0.1")])
            $0.features.requestHeadObserver = { head in heads.withLockedValue { $0.append(head) } }
        }
        defer { Task { await session.shutdown() } }
        func asked() -> [String] {
            heads.withLockedValue { $0.last?.headers.filter { $0.name == "Accept-Signature" }.map(\.value) ?? [] }
        }
        _ = try await session.send(SecureRequest(.put, url: server.url("/signed"), body: Data("order".utf8)))
        #expect(asked() == [askedFor])
        var own = SecureRequest(.put, url: server.url("/signed"), body: Data("order".utf8))
        own.headers.append((name: "accept-signature", value: #"mine=("@status");created"#))
        _ = try await session.send(own)
        #expect(heads.withLockedValue { $0.last?.headers.filter { $0.name.lowercased() == "accept-signature" }.map(\.value) } == [#"mine=("@status");created"#])

        // Another host (localhost is not named) is not asked; nor is any when the requirement does not ask.
        var unnamed = SecureRequest(.put, url: server.url("/signed", host: "localhost"), body: Data("order".utf8))
        unnamed.validation = ResponseValidation.none
        _ = try await session.send(unnamed)
        #expect(asked().isEmpty)
        let silent = lab.session {
            $0.features.interceptor = HTTPMessageSigner(key: clientKey)
            $0.responses.signatures = ResponseSignatureRequirement(verifier: verifier, asksForSignatures: false)
            $0.features.requestHeadObserver = { head in heads.withLockedValue { $0.append(head) } }
        }
        defer { Task { await silent.shutdown() } }
        _ = try await silent.send(SecureRequest(.put, url: server.url("/signed"), body: Data("order".utf8)))
        #expect(asked().isEmpty)

        // Two keys: no keyid or alg asked for; a label of the verifier's own; no created when not required.
        verifier = HTTPMessageSignatureVerifier(
            keys: [serverKey.verificationKey, HTTPSignatureKey.generated(id: "next").verificationKey],
            requiredComponents: [.status, .field("content-digest")], label: "resp", requiresCreated: false
        )
        #expect(ResponseSignatureRequirement(verifier: verifier).acceptSignatureField == #"resp=("@status" "content-digest")"#)
        #expect(ResponseSignatureRequirement(verifier: verifier, requiresBodyCoverage: false).acceptSignatureField == #"resp=("@status" "content-digest")"#)
        verifier.tag = "bänk"
        #expect(ResponseSignatureRequirement(verifier: verifier).acceptSignatureField == nil)
    }
}
