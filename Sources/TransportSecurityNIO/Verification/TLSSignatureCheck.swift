import Crypto
import CryptoExtras
import NIOCore
import NIOSSL
import X509

/// Checks a TLS handshake signature (the proof a client or server gives that it holds its
/// certificate's key: TLS 1.3's `CertificateVerify`, TLS 1.2's too or its key exchange's)
/// against a certificate's public key, with swift-crypto.
package enum TLSSignatureCheck {
    /// The hash a TLS signature algorithm signs through.
    private enum Hash {
        case sha1, sha256, sha384, sha512

        func digest(of message: [UInt8]) -> any Digest {
            switch self {
            case .sha1: Insecure.SHA1.hash(data: message)
            case .sha256: SHA256.hash(data: message)
            case .sha384: SHA384.hash(data: message)
            case .sha512: SHA512.hash(data: message)
            }
        }
    }

    /// How a TLS signature algorithm signs.
    private enum Scheme {
        case ecdsa(Hash)
        case rsaPKCS1(Hash)
        case rsaPSS(Hash)
        case ed25519
    }

    private static func scheme(of algorithm: SignatureAlgorithm) -> Scheme? {
        switch algorithm {
        case .ecdsaSha1: .ecdsa(.sha1)
        case .ecdsaSecp256R1Sha256: .ecdsa(.sha256)
        case .ecdsaSecp384R1Sha384: .ecdsa(.sha384)
        case .ecdsaSecp521R1Sha512: .ecdsa(.sha512)
        case .rsaPkcs1Sha1: .rsaPKCS1(.sha1)
        case .rsaPkcs1Sha256: .rsaPKCS1(.sha256)
        case .rsaPkcs1Sha384: .rsaPKCS1(.sha384)
        case .rsaPkcs1Sha512: .rsaPKCS1(.sha512)
        case .rsaPssRsaeSha256: .rsaPSS(.sha256)
        case .rsaPssRsaeSha384: .rsaPSS(.sha384)
        case .rsaPssRsaeSha512: .rsaPSS(.sha512)
        case .ed25519: .ed25519
        default: nil
        }
    }

    /// The algorithm's name as TLS registers it (`ecdsa_secp256r1_sha256`), or its code point.
    package static func name(of algorithm: SignatureAlgorithm) -> String {
        switch algorithm {
        case .ecdsaSha1: "ecdsa_sha1"
        case .ecdsaSecp256R1Sha256: "ecdsa_secp256r1_sha256"
        case .ecdsaSecp384R1Sha384: "ecdsa_secp384r1_sha384"
        case .ecdsaSecp521R1Sha512: "ecdsa_secp521r1_sha512"
        case .rsaPkcs1Sha1: "rsa_pkcs1_sha1"
        case .rsaPkcs1Sha256: "rsa_pkcs1_sha256"
        case .rsaPkcs1Sha384: "rsa_pkcs1_sha384"
        case .rsaPkcs1Sha512: "rsa_pkcs1_sha512"
        case .rsaPssRsaeSha256: "rsa_pss_rsae_sha256"
        case .rsaPssRsaeSha384: "rsa_pss_rsae_sha384"
        case .rsaPssRsaeSha512: "rsa_pss_rsae_sha512"
        case .ed25519: "ed25519"
        default: "0x" + String(algorithm.rawValue, radix: 16, uppercase: false)
        }
    }

    /// The kind of `key`, in words: `P-256`, `RSA`, `Ed25519`.
    package static func kind(of key: Certificate.PublicKey) -> String {
        if P256.Signing.PublicKey(key) != nil { return "P-256" }
        if P384.Signing.PublicKey(key) != nil { return "P-384" }
        if P521.Signing.PublicKey(key) != nil { return "P-521" }
        if _RSA.Signing.PublicKey(key) != nil { return "RSA" }
        if Curve25519.Signing.PublicKey(key) != nil { return "Ed25519" }
        return "unknown"
    }

    /// Whether `algorithm` signs with the kind of key `key` is (any ECDSA code with an EC key:
    /// TLS 1.2 names only the hash; BoringSSL holds TLS 1.3 to the curve).
    package static func fits(_ algorithm: SignatureAlgorithm, _ key: Certificate.PublicKey) -> Bool {
        switch scheme(of: algorithm) {
        case .ecdsa: P256.Signing.PublicKey(key) != nil || P384.Signing.PublicKey(key) != nil || P521.Signing.PublicKey(key) != nil
        case .rsaPKCS1, .rsaPSS: _RSA.Signing.PublicKey(key) != nil
        case .ed25519: Curve25519.Signing.PublicKey(key) != nil
        case nil: false
        }
    }

    /// Whether `signature` is `key`'s signature of `message` by `algorithm`.
    package static func isValid(_ signature: [UInt8], of message: [UInt8], by algorithm: SignatureAlgorithm, key: Certificate.PublicKey) -> Bool {
        switch scheme(of: algorithm) {
        case .ecdsa(let hash):
            let digest = hash.digest(of: message)
            if let key = P256.Signing.PublicKey(key), let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) {
                return key.isValidSignature(parsed, for: digest)
            }
            if let key = P384.Signing.PublicKey(key), let parsed = try? P384.Signing.ECDSASignature(derRepresentation: signature) {
                return key.isValidSignature(parsed, for: digest)
            }
            if let key = P521.Signing.PublicKey(key), let parsed = try? P521.Signing.ECDSASignature(derRepresentation: signature) {
                return key.isValidSignature(parsed, for: digest)
            }
            return false
        case .rsaPKCS1(let hash):
            guard let key = _RSA.Signing.PublicKey(key) else { return false }
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: hash.digest(of: message), padding: .insecurePKCS1v1_5)
        case .rsaPSS(let hash):
            guard let key = _RSA.Signing.PublicKey(key) else { return false }
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: hash.digest(of: message), padding: .PSS)
        case .ed25519:
            return Curve25519.Signing.PublicKey(key)?.isValidSignature(signature, for: message) ?? false
        case nil:
            return false
        }
    }
}
