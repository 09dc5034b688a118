import Crypto
import Foundation
import HTTPMessageSignatures

extension ContentDigest.Algorithm {
    /// The digest of `body`, read as it will be sent (files part by part, never held whole).
    func digest(of body: RequestBodySource) throws -> Data {
        switch self {
        case .sha256: try Self.digest(of: body, into: SHA256())
        case .sha512: try Self.digest(of: body, into: SHA512())
        }
    }

    private static func digest(of body: RequestBodySource, into hash: some HashFunction) throws -> Data {
        var hash = hash
        var parts = try body.parts()
        while let part = try parts.next() {
            part.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
        }
        return Data(hash.finalize())
    }
}

extension ContentDigest {
    /// The field value for `body`, read as it will be sent.
    /// - Throws: as ``RequestBodySource/parts()`` and ``BodyPartReader/next()``.
    static func fieldValue(for body: RequestBodySource, algorithm: Algorithm) throws -> String {
        fieldValue(digest: try algorithm.digest(of: body), algorithm: algorithm)
    }
}
