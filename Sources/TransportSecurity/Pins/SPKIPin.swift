import Crypto
import Foundation

/// A public-key pin: SHA-256 over the DER `SubjectPublicKeyInfo` of a certificate.
///
/// Written `sha256/<base64>`, the form OkHttp, TrustKit and HPKP use. Two certificates have the
/// same pin exactly when they carry the same public key.
///
/// ```swift
/// let pin = try SPKIPin("sha256/r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=")
/// ```
public struct SPKIPin: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The 32 bytes of the SHA-256 digest.
    public let digest: [UInt8]

    /// The pin of a certificate's public key.
    public init(_ certificate: DERCertificate) { self = certificate.spkiPin }

    /// Hashes the digest.
    public func hash(into hasher: inout Hasher) { hasher.combine(byteArray: digest) }

    /// The pin of a DER `SubjectPublicKeyInfo`.
    public init(subjectPublicKeyInfoDER: some Collection<UInt8>) {
        self.digest = Array(SHA256.hash(data: Array(subjectPublicKeyInfoDER)))
    }

    /// Parses `sha256/<base64>` or a bare base64 SHA-256 digest.
    /// - Throws: ``PinParsingError`` naming the text and what is wrong with it.
    public init(_ text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        var encoded = Substring(trimmed)
        // Bare base64 may itself contain '/', so a prefix is only looked for when the whole text
        // is not a base64 SHA-256 digest.
        if Data(base64Encoded: trimmed)?.count != SHA256.byteCount, let slash = trimmed.firstIndex(of: "/") {
            let algorithm = trimmed[..<slash]
            guard algorithm.lowercased() == "sha256" else {
                throw PinParsingError(text: text, reason: .unsupportedAlgorithm(String(algorithm)))
            }
            encoded = trimmed[trimmed.index(after: slash)...]
        }
        guard !encoded.isEmpty else { throw PinParsingError(text: text, reason: .empty) }
        guard let bytes = Data(base64Encoded: String(encoded)) else {
            throw PinParsingError(text: text, reason: .notBase64)
        }
        guard bytes.count == SHA256.byteCount else {
            throw PinParsingError(text: text, reason: .wrongLength(bytes.count))
        }
        self.digest = Array(bytes)
    }

    /// The digest in base64, without the algorithm prefix.
    public var base64: String { Data(digest).base64EncodedString() }

    /// `sha256/<base64>`.
    public var description: String { "sha256/" + base64 }

    /// Orders pins by their `sha256/<base64>` text, as failure messages list them.
    public static func < (lhs: SPKIPin, rhs: SPKIPin) -> Bool { lhs.description < rhs.description }

    /// Decodes a pin from its text, `sha256/<base64>` or bare base64.
    /// - Throws: A decoding error when the value is not text, ``PinParsingError`` when the text is
    ///   not a pin.
    public init(from decoder: any Decoder) throws {
        try self.init(decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes the pin as its `sha256/<base64>` text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Text that is not a valid SPKI pin.
public struct PinParsingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the text.
    public enum Reason: Sendable, Equatable {
        /// Nothing after the prefix, or no text at all.
        case empty
        /// A prefix other than `sha256/`.
        case unsupportedAlgorithm(String)
        /// The digest is not valid base64.
        case notBase64
        /// The digest decodes to this many bytes instead of 32.
        case wrongLength(Int)
    }

    /// The text that was given.
    public let text: String
    /// Why it is not a pin.
    public let reason: Reason

    /// Creates the error.
    public init(text: String, reason: Reason) {
        self.text = text
        self.reason = reason
    }

    /// A sentence naming the text and the problem.
    public var description: String {
        let why: String
        switch reason {
        case .empty: why = "it is empty"
        case .unsupportedAlgorithm(let name): why = "the hash '\(name)' is not supported; pins are sha256/<base64>"
        case .notBase64: why = "the digest is not valid base64"
        case .wrongLength(let count): why = "the digest is \(count) bytes long, a SHA-256 digest is 32"
        }
        return "'\(text)' is not an SPKI pin: \(why)"
    }
}
