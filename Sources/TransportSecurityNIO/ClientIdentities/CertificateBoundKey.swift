import NIOCore
import NIOSSL
import X509

/// A private key held outside the process (an HSM's, a cloud KMS's, a TPM's) bound to the
/// certificate it is presented with: it offers only the signature algorithms the certificate's
/// public key verifies, and checks every signature it makes against that key before the
/// handshake sends it. A key that does not belong to the certificate fails the handshake saying
/// so (``ClientIdentityError/Reason/externalKeySignatureInvalid(algorithm:)``), where the peer
/// would only answer `decrypt_error`.
struct CertificateBoundKey<Base: NIOSSLCustomPrivateKey & Hashable>: NIOSSLCustomPrivateKey, Hashable {
    let base: Base
    /// The public key of the certificate the key is presented with.
    let certificateKey: Certificate.PublicKey
    /// The identity's name in errors.
    let source: String

    var signatureAlgorithms: [SignatureAlgorithm] {
        base.signatureAlgorithms.filter { TLSSignatureCheck.fits($0, certificateKey) }
    }

    var derBytes: [UInt8] { base.derBytes }

    func sign(channel: any Channel, algorithm: SignatureAlgorithm, data: ByteBuffer) -> EventLoopFuture<ByteBuffer> {
        let message = Array(data.readableBytesView)
        return base.sign(channel: channel, algorithm: algorithm, data: data).flatMapThrowing { [certificateKey, source] signature in
            guard TLSSignatureCheck.isValid(Array(signature.readableBytesView), of: message, by: algorithm, key: certificateKey) else {
                throw ClientIdentityError(source: source, reason: .externalKeySignatureInvalid(algorithm: TLSSignatureCheck.name(of: algorithm)))
            }
            return signature
        }
    }

    func decrypt(channel: any Channel, data: ByteBuffer) -> EventLoopFuture<ByteBuffer> {
        base.decrypt(channel: channel, data: data)
    }
}

extension ClientIdentity {
    /// Creates an identity whose private key is held outside the process — an HSM (through
    /// PKCS#11), a cloud KMS, a TPM — and signs through `externalKey` (swift-nio-ssl's
    /// `NIOSSLCustomPrivateKey`, which may sign asynchronously).
    ///
    /// The key cannot be read to check it against the certificate, so it is checked where it
    /// can be: now, that it offers an algorithm the certificate's public key verifies
    /// (``ClientIdentityError/Reason/externalKeyAlgorithms(offered:certificateKey:)``); at each
    /// handshake, that its signature verifies with that public key before it is sent
    /// (``ClientIdentityError/Reason/externalKeySignatureInvalid(algorithm:)``, the handshake's
    /// failure). An error of the key's own (a device that does not answer) fails the handshake
    /// as it is.
    /// - Parameters:
    ///   - certificateChain: The certificates, leaf first.
    ///   - externalKey: The leaf's private key, held elsewhere.
    ///   - source: A name for the identity, used in errors.
    /// - Throws: ``ClientIdentityError``.
    public init(
        certificateChain: [NIOSSLCertificate],
        externalKey: some NIOSSLCustomPrivateKey & Hashable,
        source: String = "external key"
    ) throws {
        let leaf = try Self.leaf(of: certificateChain, source: source)
        let certificateKey = leaf.certificate.publicKey
        let bound = CertificateBoundKey(base: externalKey, certificateKey: certificateKey, source: source)
        guard !bound.signatureAlgorithms.isEmpty else {
            throw ClientIdentityError(source: source, reason: .externalKeyAlgorithms(
                offered: externalKey.signatureAlgorithms.map(TLSSignatureCheck.name(of:)),
                certificateKey: TLSSignatureCheck.kind(of: certificateKey)
            ))
        }
        self.init(checkedChain: certificateChain, privateKey: NIOSSLPrivateKey(customPrivateKey: bound), leaf: leaf)
    }
}
