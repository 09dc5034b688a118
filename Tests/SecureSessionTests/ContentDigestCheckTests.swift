import Foundation
@testable import HTTPMessageSignatures
import Testing

@testable import SecureSession

/// `ContentDigest.Check`: a body checked part by part, as a stream or download passes it, agrees
/// with the check of the whole body.
@Suite("Content-Digest checked part by part")
struct ContentDigestCheckTests {
    static let body = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    private static func check(_ field: String, parts: [Data]) -> Result<Void, HTTPSignatureError> {
        Result { () throws(HTTPSignatureError) in
            var check = try ContentDigest.Check(field)
            for part in parts { check.update(part) }
            try check.finish()
        }
    }

    /// `body` cut at `cuts` (sorted offsets).
    private static func parts(of body: Data, cutAt cuts: [Int]) -> [Data] {
        zip([0] + cuts, cuts + [body.count]).map { body.subdata(in: $0..<$1) }
    }

    @Test("SHA-256, SHA-512 and both: any cutting of the body gives the whole body's answer; a changed byte fails, naming the bytes received")
    func partsAgree() {
        let fields = [
            ContentDigest.fieldValue(for: Self.body),
            ContentDigest.fieldValue(for: Self.body, algorithm: .sha512),
            ContentDigest.fieldValue(for: Self.body) + ", " + ContentDigest.fieldValue(for: Self.body, algorithm: .sha512) + ", md5=:AAAA:",
        ]
        var generator = SystemRandomNumberGenerator()
        for field in fields {
            #expect((try? ContentDigest.verify(field, body: Self.body)) != nil)
            for _ in 0..<20 {
                let cuts = (0..<Int.random(in: 0...6, using: &generator)).map { _ in Int.random(in: 0...Self.body.count, using: &generator) }.sorted()
                #expect((try? Self.check(field, parts: Self.parts(of: Self.body, cutAt: cuts)).get()) != nil, "\(field) cut at \(cuts)")
            }
            var changed = Self.body
            changed[4_321] ^= 1
            guard case .failure(.contentDigestMismatch(let detail)) = Self.check(field, parts: Self.parts(of: changed, cutAt: [100, 5_000])) else {
                Issue.record("a changed body passed: \(field)")
                continue
            }
            #expect(detail.contains("for the 10000 bytes received"), "\(detail)")
        }
        // No part at all: the digest of nothing.
        #expect((try? Self.check(ContentDigest.fieldValue(for: Data()), parts: []).get()) != nil)
    }

    @Test("a field with no known algorithm, or that is no dictionary of byte sequences, is refused before any byte")
    func refusedFields() {
        #expect(throws: HTTPSignatureError.contentDigestMismatch("the field gives no digest of a known algorithm (sha-256, sha-512)")) {
            _ = try ContentDigest.Check("md5=:AAAA:")
        }
        #expect(throws: HTTPSignatureError.malformedField("Content-Digest", reason: "not a structured dictionary (RFC 9530 §2)")) {
            _ = try ContentDigest.Check("sha-256=")
        }
        #expect(throws: HTTPSignatureError.malformedField("Content-Digest", reason: "'sha-256' is not a byte sequence")) {
            _ = try ContentDigest.Check("sha-256=42")
        }
    }
}
