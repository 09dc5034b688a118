import Crypto
import Foundation
import RawStructuredFieldValues

/// `Content-Digest` (RFC 9530): the hash of a message's body, a field a signature covers so
/// that it covers the body too.
public enum ContentDigest {
    /// A digest algorithm of RFC 9530's registry that is not deprecated.
    public enum Algorithm: String, Sendable, Hashable, CaseIterable {
        /// `sha-256`.
        case sha256 = "sha-256"
        /// `sha-512`.
        case sha512 = "sha-512"

        /// The digest of `body`.
        package func digest(of body: some DataProtocol) -> Data {
            switch self {
            case .sha256: Data(SHA256.hash(data: body))
            case .sha512: Data(SHA512.hash(data: body))
            }
        }
    }

    /// The field value for `body`: `sha-256=:…:`.
    public static func fieldValue(for body: some DataProtocol, algorithm: Algorithm = .sha256) -> String {
        fieldValue(digest: algorithm.digest(of: body), algorithm: algorithm)
    }

    /// The field value for a `digest` made by `algorithm`.
    package static func fieldValue(digest: Data, algorithm: Algorithm) -> String {
        "\(algorithm.rawValue)=:\(digest.base64EncodedString()):"
    }

    /// Checks `body` against a `Content-Digest` field value: every digest it gives of an
    /// algorithm known here must match, and at least one must be known.
    /// - Throws: ``HTTPSignatureError/malformedField(_:reason:)`` for a value that is not a
    ///   dictionary of byte sequences, ``HTTPSignatureError/contentDigestMismatch(_:)`` for a
    ///   digest that does not match or none of a known algorithm.
    public static func verify(_ fieldValue: String, body: some DataProtocol) throws(HTTPSignatureError) {
        var check = try Check(fieldValue)
        check.update(body)
        try check.finish()
    }

    /// A body checked against a `Content-Digest` field value as it passes, part by part (a
    /// stream, a download), never held whole.
    package struct Check {
        /// The digests the field gives, of the algorithms known here, in its order.
        private let expected: [(algorithm: Algorithm, digest: Data, encoded: String)]
        /// The hashes `expected` needs: SHA-256, SHA-512, or both.
        private var sha256: SHA256?
        private var sha512: SHA512?
        private var byteCount = 0

        /// The check of `fieldValue`'s digests.
        /// - Throws: as ``ContentDigest/verify(_:body:)`` for a malformed value or one with no
        ///   digest of a known algorithm.
        package init(_ fieldValue: String) throws(HTTPSignatureError) {
            var parser = StructuredFieldValueParser(Array(fieldValue.utf8))
            guard let dictionary = try? parser.parseDictionaryFieldValue() else {
                throw .malformedField("Content-Digest", reason: "not a structured dictionary (RFC 9530 §2)")
            }
            var expected: [(Algorithm, Data, String)] = []
            for (name, member) in dictionary {
                guard let algorithm = Algorithm(rawValue: name) else { continue }
                guard case .item(let item) = member, case .undecodedByteSequence(let encoded) = item.rfc9651BareItem,
                      let given = Data(base64Encoded: encoded) else {
                    throw .malformedField("Content-Digest", reason: "'\(name)' is not a byte sequence")
                }
                expected.append((algorithm, given, encoded))
            }
            guard !expected.isEmpty else {
                throw .contentDigestMismatch("the field gives no digest of a known algorithm (\(Algorithm.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            self.expected = expected
            if expected.contains(where: { $0.0 == .sha256 }) { sha256 = SHA256() }
            if expected.contains(where: { $0.0 == .sha512 }) { sha512 = SHA512() }
        }

        /// Takes the next part of the body.
        package mutating func update(_ part: some DataProtocol) {
            byteCount += part.count
            sha256?.update(data: part)
            sha512?.update(data: part)
        }

        /// Compares the digests of the body taken with the field's.
        /// - Throws: ``HTTPSignatureError/contentDigestMismatch(_:)`` for one that differs.
        package func finish() throws(HTTPSignatureError) {
            for (algorithm, given, encoded) in expected {
                let actual = switch algorithm {
                case .sha256: sha256.map { Data($0.finalize()) } ?? Data()
                case .sha512: sha512.map { Data($0.finalize()) } ?? Data()
                }
                guard given == actual else {
                    throw .contentDigestMismatch("\(algorithm.rawValue) is \(actual.base64EncodedString()) for the \(byteCount) bytes received, the field says \(encoded)")
                }
            }
        }
    }
}
