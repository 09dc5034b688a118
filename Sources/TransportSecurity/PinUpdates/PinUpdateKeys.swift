import Crypto
import Foundation
import SwiftASN1
import X509

/// The algorithm of a pin-update signing key.
public enum PinUpdateKeyAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// Ed25519 (RFC 8032): 64-byte signatures.
    case ed25519
    /// ECDSA over P-256 with SHA-256: DER-encoded signatures.
    case p256

    var signatureAlgorithm: Certificate.SignatureAlgorithm {
        switch self {
        case .ed25519: return .ed25519
        case .p256: return .ecdsaWithSHA256
        }
    }
}

/// The public key built into an application, against which pin-update documents are verified:
/// Ed25519 or P-256, read from a PEM `PUBLIC KEY` (SubjectPublicKeyInfo) block.
public struct PinUpdatePublicKey: Sendable, Hashable {
    /// The key.
    public let key: Certificate.PublicKey
    /// Its algorithm.
    public let algorithm: PinUpdateKeyAlgorithm

    /// Wraps a key; throws unless it is Ed25519 or P-256.
    public init(_ key: Certificate.PublicKey) throws(PinUpdateError) {
        self.key = key
        if Curve25519.Signing.PublicKey(key) != nil {
            algorithm = .ed25519
        } else if P256.Signing.PublicKey(key) != nil {
            algorithm = .p256
        } else {
            throw PinUpdateError(.unusableKey("only Ed25519 and P-256 keys sign pin updates"))
        }
    }

    /// Reads a PEM `PUBLIC KEY` block.
    public init(pemEncoded text: String, source: String? = nil) throws(PinUpdateError) {
        let key: Certificate.PublicKey
        do {
            key = try Certificate.PublicKey(pemEncoded: text)
        } catch {
            if text.contains("PRIVATE KEY-----") {
                throw PinUpdateError(.unusableKey("this is a private key; verifying needs the public key (NAME.pub from tsec pins keygen)"), source: source)
            }
            throw PinUpdateError(.unusableKey("not a PEM public key (\(CertificateLoader.readable(error)))"), source: source)
        }
        do {
            try self.init(key)
        } catch {
            throw PinUpdateError(error.reason, source: source)
        }
    }

    /// The key as a PEM `PUBLIC KEY` block.
    public var pemEncoded: String {
        get throws { try key.serializeAsPEM().pemString }
    }

    /// Whether `signature` (raw bytes) is this key's signature over exactly `document`.
    public func isValidSignature(_ signature: [UInt8], for document: [UInt8]) -> Bool {
        key.isValidSignature(signature, for: document, signatureAlgorithm: algorithm.signatureAlgorithm)
    }

    /// Verifies a signature file's text (base64, surrounding whitespace ignored) over `document`.
    public func verify(signatureText: String, for document: [UInt8]) throws(PinUpdateError) {
        let signature = try PinUpdateSignature.decode(signatureText)
        guard isValidSignature(signature, for: document) else { throw PinUpdateError(.badSignature) }
    }
}

/// The publisher's private key that signs pin-update documents (kept offline, never in the app).
public struct PinUpdateSigningKey: Sendable {
    /// The key.
    public let key: Certificate.PrivateKey
    /// Its algorithm.
    public let algorithm: PinUpdateKeyAlgorithm

    /// A new random key.
    public init(generating algorithm: PinUpdateKeyAlgorithm) {
        self.algorithm = algorithm
        switch algorithm {
        case .ed25519: key = Certificate.PrivateKey(Curve25519.Signing.PrivateKey())
        case .p256: key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        }
    }

    /// Reads a PEM `PRIVATE KEY` (PKCS#8) or `EC PRIVATE KEY` block.
    public init(pemEncoded text: String, source: String? = nil) throws(PinUpdateError) {
        do {
            key = try Certificate.PrivateKey(pemEncoded: text)
        } catch {
            if text.contains("-----BEGIN PUBLIC KEY-----") {
                throw PinUpdateError(.unusableKey("this is a public key; signing needs the private key (NAME.key from tsec pins keygen)"), source: source)
            }
            throw PinUpdateError(.unusableKey("not a PEM private key (\(CertificateLoader.readable(error)))"), source: source)
        }
        do {
            algorithm = try PinUpdatePublicKey(key.publicKey).algorithm
        } catch {
            throw PinUpdateError(error.reason, source: source)
        }
    }

    /// The matching public key.
    public var publicKey: PinUpdatePublicKey {
        // The algorithm was checked when the key was made or read.
        get throws { try PinUpdatePublicKey(key.publicKey) }
    }

    /// The key as a PEM `PRIVATE KEY` block.
    public var pemEncoded: String {
        get throws { try key.serializeAsPEM().pemString }
    }

    /// Signs exactly `document`; the raw signature bytes.
    public func sign(_ document: [UInt8]) throws -> [UInt8] {
        try key.sign(bytes: document, signatureAlgorithm: algorithm.signatureAlgorithm).rawRepresentation
    }
}

/// The signature file's form: the signature bytes in base64, on one line.
public enum PinUpdateSignature {
    /// The text of a signature file.
    public static func encode(_ signature: [UInt8]) -> String { Data(signature).base64EncodedString() + "\n" }

    /// The signature bytes of a signature file's text.
    public static func decode(_ text: String) throws(PinUpdateError) -> [UInt8] {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw PinUpdateError(.malformedSignature("it is empty")) }
        guard let bytes = Data(base64Encoded: trimmed) else { throw PinUpdateError(.malformedSignature("not base64")) }
        return Array(bytes)
    }
}
