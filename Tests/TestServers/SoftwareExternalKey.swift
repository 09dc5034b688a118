import Crypto
import CryptoExtras
import Foundation
import NIOCore
import NIOSSL
import PKIBuilder
import SwiftASN1

/// A private key that signs outside BoringSSL as an HSM's or a cloud KMS's does: later, from
/// another thread, through swift-nio-ssl's `NIOSSLCustomPrivateKey`. For the tests of external
/// keys; made from the key of a lab certificate.
public struct SoftwareExternalKey: NIOSSLCustomPrivateKey, Hashable {
    /// A device that does not answer: every signature fails with this text.
    public struct Unavailable: Error, CustomStringConvertible, Hashable {
        public let description: String
    }

    private let keyPEM: String
    private let algorithm: KeyAlgorithm
    private let failure: Unavailable?

    /// The key of `certificate`; with `failure`, a key whose every signature fails so.
    public init(keyOf certificate: IssuedCertificate, failure: String? = nil) throws {
        keyPEM = try certificate.privateKeyPEM
        algorithm = certificate.keyPair.algorithm
        self.failure = failure.map(Unavailable.init(description:))
    }

    public var signatureAlgorithms: [SignatureAlgorithm] {
        switch algorithm {
        case .p256: [.ecdsaSecp256R1Sha256]
        case .p384: [.ecdsaSecp384R1Sha384]
        case .p521: [.ecdsaSecp521R1Sha512]
        case .rsa2048: [.rsaPssRsaeSha256, .rsaPssRsaeSha384, .rsaPkcs1Sha256, .rsaPkcs1Sha384]
        case .ed25519: [.ed25519]
        }
    }

    public func sign(channel: any Channel, algorithm signatureAlgorithm: SignatureAlgorithm, data: ByteBuffer) -> EventLoopFuture<ByteBuffer> {
        let promise = channel.eventLoop.makePromise(of: ByteBuffer.self)
        let message = Array(data.readableBytesView)
        Task {
            do {
                if let failure { throw failure }
                promise.succeed(ByteBuffer(bytes: try signature(of: message, by: signatureAlgorithm)))
            } catch {
                promise.fail(error)
            }
        }
        return promise.futureResult
    }

    public func decrypt(channel: any Channel, data: ByteBuffer) -> EventLoopFuture<ByteBuffer> {
        channel.eventLoop.makeFailedFuture(Unavailable(description: "decryption is not offered"))
    }

    /// `message` signed by `signatureAlgorithm` (its hash: SHA-1, SHA-384 or SHA-512 when the
    /// algorithm's name says so, else SHA-256; RSA-PSS for the `rsaPss` algorithms).
    public func signature(of message: [UInt8], by signatureAlgorithm: SignatureAlgorithm) throws -> [UInt8] {
        let digest: any Digest =
            switch signatureAlgorithm {
            case .ecdsaSha1, .rsaPkcs1Sha1: Insecure.SHA1.hash(data: message)
            case .ecdsaSecp384R1Sha384, .rsaPkcs1Sha384, .rsaPssRsaeSha384: SHA384.hash(data: message)
            case .ecdsaSecp521R1Sha512, .rsaPkcs1Sha512, .rsaPssRsaeSha512: SHA512.hash(data: message)
            default: SHA256.hash(data: message)
            }
        switch algorithm {
        case .p256:
            return Array(try P256.Signing.PrivateKey(pemRepresentation: keyPEM).signature(for: digest).derRepresentation)
        case .p384:
            return Array(try P384.Signing.PrivateKey(pemRepresentation: keyPEM).signature(for: digest).derRepresentation)
        case .p521:
            return Array(try P521.Signing.PrivateKey(pemRepresentation: keyPEM).signature(for: digest).derRepresentation)
        case .rsa2048:
            let key = try _RSA.Signing.PrivateKey(pemRepresentation: keyPEM)
            let padding: _RSA.Signing.Padding =
                [.rsaPssRsaeSha256, .rsaPssRsaeSha384, .rsaPssRsaeSha512].contains(signatureAlgorithm) ? .PSS : .insecurePKCS1v1_5
            return Array(try key.signature(for: digest, padding: padding).rawRepresentation)
        case .ed25519:
            // PKCS#8 of an Ed25519 key: the 32-byte seed ends it.
            let der = try PEMDocument(pemString: keyPEM).derBytes
            return Array(try Curve25519.Signing.PrivateKey(rawRepresentation: der.suffix(32)).signature(for: message))
        }
    }
}
