import Benchmark
import Crypto
import Foundation
import SecureSession

/// What an HTTP message signature (RFC 9421) costs a request beside the signature itself: the
/// signer (Content-Digest of a 1 KiB body, the signature base, the structured fields) against
/// swift-crypto signing the same base alone, and the verifier (parsing both fields, rebuilding
/// the base, the digest) against swift-crypto verifying it alone. Ed25519, one request. And a
/// body's `Content-Digest` check against the bare hash.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        warmupIterations: 100,
        scalingFactor: .one,
        maxDuration: .seconds(5),
        maxIterations: 20_000
    )
    let privateKey = Curve25519.Signing.PrivateKey()
    let key = try! HTTPSignatureKey(id: "client", pemEncoded: privateKey.pemRepresentation)
    let created = Date(timeIntervalSince1970: 1_800_000_000)
    let signer = HTTPMessageSigner(key: key, covering: [.method, .targetURI, .field("content-type")], includesNonce: true, clock: { created })
    let request = SecureRequest(
        .post,
        url: URL(string: "https://api.bank.example/v1/payments?account=42")!,
        headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
        body: Data(repeating: UInt8(ascii: "x"), count: 1024)
    )
    let signed = try! signer.signed(request)
    let verifier = HTTPMessageSignatureVerifier(keys: [key.verificationKey], requiredComponents: [.method, .targetURI, .field("content-digest")], clock: { created })
    let base = try! verifier.verify(HTTPSignatureMessage(signed)).base
    let baseBytes = Data(base.utf8)
    let rawSignature = try! privateKey.signature(for: baseBytes)

    Benchmark("HTTPMessageSigner.signed (Ed25519, 1 KiB body)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try! signer.signed(request)) }
    }
    Benchmark("peer: Ed25519 signature of the same base") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try! privateKey.signature(for: baseBytes)) }
    }
    Benchmark("HTTPMessageSignatureVerifier.verify (Ed25519, 1 KiB body)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try! verifier.verify(HTTPSignatureMessage(signed))) }
    }
    Benchmark("peer: Ed25519 verification of the same base") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(privateKey.publicKey.isValidSignature(rawSignature, for: baseBytes)) }
    }

    // A signed response's body checked against its Content-Digest (the check streamed and
    // downloaded answers go through, fed part by part) against hashing the body alone.
    let megabyte = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0) })
    let digestField = ContentDigest.fieldValue(for: megabyte)
    Benchmark("ContentDigest.verify (SHA-256, 1 MiB body)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try! ContentDigest.verify(digestField, body: megabyte)) }
    }
    Benchmark("peer: SHA-256 of the same body") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(SHA256.hash(data: megabyte)) }
    }
}
