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

        func digest(of body: some DataProtocol) -> Data {
            switch self {
            case .sha256: Data(SHA256.hash(data: body))
            case .sha512: Data(SHA512.hash(data: body))
            }
        }

        func digest(ofFile path: String) throws -> Data {
            switch self {
            case .sha256: try Self.digest(ofFile: path, into: SHA256())
            case .sha512: try Self.digest(ofFile: path, into: SHA512())
            }
        }

        /// The file's bytes through `hash`, read part by part (never held whole).
        private static func digest(ofFile path: String, into hash: some HashFunction) throws -> Data {
            guard let stream = InputStream(fileAtPath: path) else { throw CocoaError(.fileReadNoSuchFile) }
            stream.open()
            defer { stream.close() }
            var hash = hash
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = stream.read(&buffer, maxLength: buffer.count)
                if count < 0 { throw stream.streamError ?? CocoaError(.fileReadUnknown) }
                if count == 0 { return Data(hash.finalize()) }
                hash.update(data: buffer[..<count])
            }
        }
    }

    /// The field value for `body`: `sha-256=:…:`.
    public static func fieldValue(for body: some DataProtocol, algorithm: Algorithm = .sha256) -> String {
        fieldValue(digest: algorithm.digest(of: body), algorithm: algorithm)
    }

    /// The field value for the file at `path`, read part by part.
    static func fieldValue(forFile path: String, algorithm: Algorithm) throws -> String {
        fieldValue(digest: try algorithm.digest(ofFile: path), algorithm: algorithm)
    }

    private static func fieldValue(digest: Data, algorithm: Algorithm) -> String {
        "\(algorithm.rawValue)=:\(digest.base64EncodedString()):"
    }

    /// Checks `body` against a `Content-Digest` field value: every digest it gives of an
    /// algorithm known here must match, and at least one must be known.
    /// - Throws: ``HTTPSignatureError/malformedField(_:reason:)`` for a value that is not a
    ///   dictionary of byte sequences, ``HTTPSignatureError/contentDigestMismatch(_:)`` for a
    ///   digest that does not match or none of a known algorithm.
    public static func verify(_ fieldValue: String, body: some DataProtocol) throws(HTTPSignatureError) {
        var parser = StructuredFieldValueParser(Array(fieldValue.utf8))
        guard let dictionary = try? parser.parseDictionaryFieldValue() else {
            throw .malformedField("Content-Digest", reason: "not a structured dictionary (RFC 9530 §2)")
        }
        var checked: [String] = []
        for (name, member) in dictionary {
            guard let algorithm = Algorithm(rawValue: name) else { continue }
            guard case .item(let item) = member, case .undecodedByteSequence(let encoded) = item.rfc9651BareItem,
                  let given = Data(base64Encoded: encoded) else {
                throw .malformedField("Content-Digest", reason: "'\(name)' is not a byte sequence")
            }
            let actual = algorithm.digest(of: body)
            guard given == actual else {
                throw .contentDigestMismatch("\(name) is \(actual.base64EncodedString()) for the \(body.count) bytes received, the field says \(encoded)")
            }
            checked.append(name)
        }
        guard !checked.isEmpty else {
            throw .contentDigestMismatch("the field gives no digest of a known algorithm (\(Algorithm.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
    }
}
